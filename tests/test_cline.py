"""Cline, the real CLI (npm ``cline``, installed by the suite), against the
loopback OpenAI fake: after ``conv connect cline`` its runs are in the store
with no conv command typed (its TaskComplete hook, a file of conv's own),
once, with the file its editor tool wrote kept as the answer's edit and its
tokens in their classes; ``--remove`` takes the hook out. An older Cline
extension's task folder, written here in its shape, is read too."""

import json
import os
import shutil
import signal
import socket
from pathlib import Path

from conftest import FakeServer, conv_env, ok
from real_tools import Headless
from test_capture_agents import stored

DATA = Path(__file__).parent / "data" / "cline-3.0.65"  # sessions the real cline wrote


class Cline(Headless):
    """The real Cline CLI in ``project``, with its own HOME and its own hub port (its background daemon keeps the
    environment of the run that started it: one a test, stopped after it)."""

    def __init__(self, binary, project, home, server):
        self.binary, self.project = binary, project
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.env = conv_env({"HOME": str(home), "CLINE_HUB_PORT": str(port), "CLINE_TELEMETRY_DISABLED": "1"})
        self.port = port
        self("auth", "--provider", "openai", "--apikey", "sk-fake", "--modelid", "fake-model",
             "--baseurl", f"{server.url}/v1" if not server.url.endswith("/v1") else server.url)

    def stop(self) -> None:
        """Its hub daemon, if one was started (found by its port among the processes)."""
        for pid in os.listdir("/proc"):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    argv = cmdline.read().split(b"\0")
            except OSError:
                continue
            if b"--cline-hub-daemon" in argv and str(self.port).encode() in argv:
                os.kill(int(pid), signal.SIGTERM)


def test_cline_runs_are_captured_once_with_their_edit_and_tokens(cline, tmp_path, monkeypatch):
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    said = ok("connect", "cline").stdout.decode()
    hook = home / ".cline" / "hooks" / "TaskComplete.sh"
    assert f"cline: connected: conv's hook added to {hook}" in said and hook.is_file()
    with FakeServer(reply="Wrote hello.py.") as server:
        agent = Cline(cline, project, home, server)
        try:
            server.set(tool_call=("editor", json.dumps({"path": str(project / "hello.py"),
                                                        "new_text": "print('hello')\n"})))
            agent("write hello.py that prints hello")
            conv = stored(2)
            assert (project / "hello.py").read_text() == "print('hello')\n"  # Cline's own tool wrote it
            question, answer = conv["turns"]
            assert question["content"] == "write hello.py that prints hello"  # out of its <user_input>
            assert answer["content"].endswith("Wrote hello.py.") and "```tool call: editor" in answer["content"]
            assert [(e["path"], e["kind"], e.get("file")) for e in answer["edits"]] == [
                (str(project / "hello.py"), "write", "hello.py")]
            assert answer["usage"]["prompt_tokens"] > 0 and "cache_read_tokens" in answer["usage"]
            assert conv["imported_from"]["source"] == "cline" and conv["imported_from"]["cwd"] == str(project)

            server.set(tool_call=None, reply="It is 4.")
            agent("what is 2+2?")
            both = stored(2, conversations=2)
            assert sorted(c["turns"] for c in both) == [2, 2]
        finally:
            agent.stop()
    again = json.loads(ok("import", "--from", "cline", "--json").stdout)
    assert (again["added"], again["turns_added"], again["turns_updated"]) == (0, 0, 0), again
    ok("connect", "cline", "--remove")
    assert not hook.exists()


def test_an_older_extensions_task_folder_is_read_though_its_history_no_longer_lists_it(tmp_path, monkeypatch):
    config = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    task = config / "Code" / "User" / "globalStorage" / "saoudrizwan.claude-dev" / "tasks" / "1733800000000"
    task.mkdir(parents=True)
    (task.parent.parent / "state").mkdir()
    (task.parent.parent / "state" / "taskHistory.json").write_text("[]")  # Cline's index lost it: still read
    history = [
        {"role": "user", "ts": 1733800000000, "content": [
            {"type": "text", "text": "<task>\nfix the bug in app.py\n</task>"},
            {"type": "text", "text": "<environment_details>\n# Current Working Directory (/home/u/proj) Files\n"
                                     "app.py\n</environment_details>"}]},
        {"role": "assistant", "ts": 1733800001000, "modelInfo": {"modelId": "claude-sonnet-4"},
         "metrics": {"tokens": {"prompt": 1200, "completion": 80, "cached": 1000}, "cost": 0.01},
         "content": [{"type": "text", "text": "I'll fix it.\n<replace_in_file>\n<path>app.py</path>\n<diff>\n"
                                              "------- SEARCH\nx = 1\n=======\nx = 2\n+++++++ REPLACE\n</diff>\n"
                                              "</replace_in_file>"}]},
        {"role": "user", "ts": 1733800002000, "content": [
            {"type": "text", "text": "[replace_in_file for 'app.py'] Result:\nThe content was saved."}]},
        {"role": "assistant", "ts": 1733800003000, "content": [{"type": "text", "text": "Fixed: x is 2 now."}]},
    ]
    (task / "api_conversation_history.json").write_text(json.dumps(history))
    done = json.loads(ok("import", "--from", "cline", "--json").stdout)
    assert done["added"] == 1, done
    (listed,) = json.loads(ok("list", "--json").stdout)
    conv = json.loads(ok("show", listed["id"], "--json").stdout)
    assert [t["role"] for t in conv["turns"]] == ["user", "assistant"]
    question, answer = conv["turns"]
    assert question["content"] == "fix the bug in app.py" and answer["content"].endswith("Fixed: x is 2 now.")
    assert [(e["path"], e["kind"], e["before"], e["after"]) for e in answer["edits"]] == [
        ("app.py", "replace", "x = 1\n", "x = 2\n")]
    assert answer["usage"] == {"prompt_tokens": 200, "cache_write_tokens": 0, "cache_read_tokens": 1000,
                               "completion_tokens": 80, "cost": 0.01}
    assert conv["imported_from"]["cwd"] == "/home/u/proj"


def test_the_real_clis_sessions_keep_each_messages_time_and_its_failed_calls(tmp_path, monkeypatch):
    """Sessions the real cline 3.0.65 wrote (tests/data): an editor call that failed (Cline says so in the
    result's JSON, not with is_error), run_commands with a failing command, and a session resumed a minute on."""
    sessions = tmp_path / "sessions"
    shutil.copytree(DATA, sessions)
    ok("import", "--from", "cline", str(sessions))
    shown = {c["title"]: json.loads(ok("show", c["id"], "--json").stdout)
             for c in json.loads(ok("list", "--json").stdout)}
    edited = shown["edit target.txt"]["turns"][1]
    assert [(e["kind"], e.get("failed")) for e in edited["edits"]] == [("write", True)]
    resumed = shown["run cmds"]["turns"]
    assert [t["created"] for t in resumed] == ["2026-12-02T03:55:02.306Z", "2026-12-02T03:55:02.368Z",
                                               "2026-12-02T03:55:58.694Z", "2026-12-02T03:55:58.820Z"]
    assert all(c["failed"] for c in resumed[1]["commands"])  # one call: it failed (in part)


def test_an_older_task_in_xml_is_its_questions_with_its_calls_results_tokens_and_model(tmp_path, monkeypatch):
    config = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    task = config / "Code" / "User" / "globalStorage" / "saoudrizwan.claude-dev" / "tasks" / "1732000000000"
    task.mkdir(parents=True)
    said = [
        ("user", ["<task>\nmake hello.py print hi\n</task>",
                  "<environment_details>\n# Current Working Directory (/home/u/old) Files\n</environment_details>"]),
        ("assistant", ["<thinking>Write it.</thinking>\n<write_to_file>\n<path>hello.py</path>\n<content>\n"
                       "print('hi')\n</content>\n</write_to_file>"]),
        ("user", ["[write_to_file for 'hello.py'] Result:", "The content was successfully saved to hello.py.",
                  "<environment_details>\nVSCode Visible Files\n</environment_details>"]),
        ("assistant", ["<execute_command>\n<command>python3 hello.py</command>\n</execute_command>"]),
        ("user", ["[execute_command for 'python3 hello.py'] Result:", "The tool execution failed: no python3"]),
        ("assistant", ["<attempt_completion>\n<result>\nhello.py prints hi.\n</result>\n</attempt_completion>"]),
        ("user", ["[attempt_completion] Result:", "The user has provided feedback.\n<feedback>\nadd a comment\n"
                                                  "</feedback>"]),
        ("assistant", ["Added."])]
    (task / "api_conversation_history.json").write_text(json.dumps(
        [{"role": role, "content": [{"type": "text", "text": text} for text in texts]} for role, texts in said]))
    (task / "ui_messages.json").write_text(json.dumps([
        {"ts": 1732000000000, "type": "say", "say": "task", "text": "make hello.py print hi"},
        {"ts": 1732000001000, "type": "say", "say": "api_req_started", "text": json.dumps(
            {"tokensIn": 10, "tokensOut": 100, "cacheWrites": 2000, "cacheReads": 0, "cost": 0.01})},
        {"ts": 1732000005000, "type": "say", "say": "api_req_started", "text": json.dumps(
            {"tokensIn": 5, "tokensOut": 50, "cacheWrites": 100, "cacheReads": 2000, "cost": 0.002})}]))
    (task / "task_metadata.json").write_text(json.dumps(
        {"model_usage": [{"ts": 1732000000000, "model_id": "claude-3-5-sonnet-20241022"}]}))
    ok("import", "--from", "cline")
    (listed,) = json.loads(ok("list", "--json").stdout)
    conv = json.loads(ok("show", listed["id"], "--json").stdout)
    assert [(t["role"], t["content"] if t["role"] == "user" else "") for t in conv["turns"]] == [
        ("user", "make hello.py print hi"), ("assistant", ""), ("user", "add a comment"), ("assistant", "")]
    answer = conv["turns"][1]
    assert conv["created"].startswith("2024-11-19T07:06:40") and answer["created"].startswith("2024-11-19T07:06:41")
    assert answer["model"] == "claude-3-5-sonnet-20241022" and answer["thinking"] == "Write it."
    assert answer["usage"] == {"prompt_tokens": 15, "cache_write_tokens": 2100, "cache_read_tokens": 2000,
                               "completion_tokens": 150, "cost": 0.012}
    assert [(e["kind"], e["after"]) for e in answer["edits"]] == [("write", "print('hi')")]
    assert answer["commands"] == [{"command": "python3 hello.py", "tool": "execute_command", "failed": True}]
    assert "hello.py prints hi." in answer["content"] and "<attempt_completion>" not in answer["content"]
    assert "<thinking>" not in answer["content"]
    again = json.loads(ok("import", "--from", "cline", "--json").stdout)
    assert (again["added"], again["turns_added"]) == (0, 0)
