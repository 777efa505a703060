"""Cline, the real CLI (npm ``cline``, installed by the suite), against the
loopback OpenAI fake: after ``conv connect cline`` its runs are in the store
with no conv command typed (its TaskComplete hook, a file of conv's own),
once, with the file its editor tool wrote kept as the answer's edit and its
tokens in their classes; ``--remove`` takes the hook out. An older Cline
extension's task folder, written here in its shape, is read too."""

import json
import os
import signal
import socket

from conftest import FakeServer, conv_env, ok
from real_tools import Headless
from test_capture_agents import stored


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
