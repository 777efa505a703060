"""Gemini CLI, the real one (installed from npm by the suite), against a
loopback fake of the Gemini API (gemini_fake.py): after ``conv connect
gemini`` its runs, a resume and a tool call are in the store with no conv
command typed, once; conv mcp, written into the same settings file, answers
it; its own files deleted change nothing; ``--remove`` gives the settings
back byte for byte. Its session file is a log of changes (messages written
again, lists of messages set, rewinds), replayed; what it wrote itself is
never a question. A conversation handed off is resumed by it."""

import json
import shutil

from conftest import conv_env, git, ok
from gemini_fake import GeminiFake
from real_tools import Headless
from test_capture_agents import stored

from conv import importers, sources

# the user's settings: an API key's login, nothing sent to Google but the questions
THEIRS = json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}},
                     "privacy": {"usageStatisticsEnabled": False},
                     "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
                     "mcpServers": {"docs": {"command": "docs-mcp"}}}, indent=2) + "\n"


class Gemini(Headless):
    """The real Gemini CLI in ``project``, with its own HOME, asking the fake (a folder it trusts)."""

    def __init__(self, binary, project, home, server):
        self.binary, self.project = binary, project
        self.env = conv_env({"HOME": str(home), "GOOGLE_GEMINI_BASE_URL": server.url, "GEMINI_API_KEY": "fake-key",
                             "GEMINI_CLI_TRUST_WORKSPACE": "true"})


def test_gemini_runs_a_resume_and_a_tool_call_are_captured_once_and_conv_mcp_answers_it(gemini, tmp_path,
                                                                                        store_path):
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(THEIRS)
    said = ok("connect", "gemini", env={"HOME": str(home)}).stdout.decode()
    assert f"gemini: connected: conv's hook added to {settings}" in said and "AfterAgent, SessionEnd" in said
    assert "conv mcp is its MCP server (mcpServers.conv in settings.json)" in said

    with GeminiFake(reply="It printed hi.") as server:
        agent = Gemini(gemini, project, home, server)
        server.script = [[{"functionCall": {"name": "run_shell_command", "args": {"command": "echo hi"}}}]]
        assert "It printed hi." in agent("-p", "run echo hi", "--yolo")
        conv = stored(2)
        question, answer = conv["turns"]
        assert question["content"] == "run echo hi"
        assert "```tool call: run_shell_command" in answer["content"] and "Output: hi" in answer["content"]
        assert answer["content"].endswith("It printed hi.")
        assert conv["imported_from"]["source"] == "gemini" and conv["imported_from"]["cwd"] == str(project)

        server.reply = "En français : il a affiché hi."
        agent("--resume", "latest", "-p", "and in French?")
        conv = stored(4)
        assert [t["content"] for t in conv["turns"][2:]] == ["and in French?", "En français : il a affiché hi."]
        # a new session asks conv mcp, which conv connect put in its settings
        server.script = [[{"functionCall": {"name": "mcp_conv_search", "args": {"query": "echo"}}}]]
        server.reply = "You ran echo before."
        agent("-p", "what did I run before?", "--allowed-tools", "mcp_conv_search")
        handed = [p for r in server.requests for c in r["body"].get("contents", []) for p in c.get("parts", [])
                  if "functionResponse" in p]
        assert conv["id"] in json.dumps(handed), handed

    both = stored(2, conversations=2)
    searched = json.loads(ok("show", both[0]["id"], "--json").stdout)["turns"][1]["content"]
    assert "tool call: mcp_conv_search" in searched and conv["id"] not in searched  # conv's own answer kept aside
    head = git(store_path, "rev-parse", "HEAD")
    shutil.rmtree(home / ".gemini" / "tmp")
    assert json.loads(ok("list", "--json").stdout) == both and git(store_path, "rev-parse", "HEAD") == head
    git(store_path, "fsck", "--strict")

    ok("connect", "gemini", "--remove", env={"HOME": str(home)})
    assert settings.read_text() == THEIRS


def log(*lines: dict) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def message(n: int, kind: str, content, **more) -> dict:
    return {"id": f"m{n}", "timestamp": f"2026-11-28T10:00:{n:02d}.000Z", "type": kind, "content": content, **more}


def test_a_gemini_log_is_replayed_a_rewind_is_a_fork_and_its_own_words_are_no_question(tmp_path):
    chats = tmp_path / "proj" / "chats"
    chats.mkdir(parents=True)
    (tmp_path / "proj" / ".project_root").write_text("/home/dev/app")
    answer = message(2, "gemini", "", model="gemini-x", tokens={"input": 10, "output": 2, "thoughts": 1})
    session = chats / "session-2026-11-28T10-00-aaaa0001.jsonl"
    session.write_text(log(
        {"sessionId": "s1", "projectHash": "h", "startTime": "2026-11-28T10:00:00.000Z", "kind": "main"},
        {"$set": {"messages": [message(0, "user", [{"text": "<session_context>\nlinux\n"}])]}},
        message(1, "user", [{"text": "why is the build red?"}]),
        answer,
        {**answer, "content": "A missing header.", "thoughts": [{"subject": "Log", "description": "read it"}],
         "toolCalls": [{"id": "c1", "name": "read_file", "args": {"path": "build.log"}, "status": "success",
                        "result": [{"functionResponse": {"id": "c1", "name": "read_file",
                                                         "response": {"output": "fatal: x.h"}}}]}]},
        message(3, "user", [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "fatal"}}}]),
        {"$set": {"lastUpdated": "2026-11-28T10:00:03.000Z"}},
        message(4, "user", [{"text": "/compress"}]),
        message(5, "user", [{"text": "<state_snapshot>the build, a header</state_snapshot>"}]),
        message(6, "gemini", "Got it. Thanks for the additional context!"),
        {"$set": {"messages": [message(0, "user", "changed"), message(5, "user", "x"), message(6, "gemini", "y")]}},
        message(7, "user", [{"text": "and the fix?"}]),
        message(8, "gemini", "Add the include.", model="gemini-x"),
        {"$rewindTo": "m7"},
        message(9, "user", [{"text": "and in C++?"}]),
        message(10, "gemini", "Include <x.h>.", model="gemini-x")))
    read = importers.read(sources.source("gemini").reader(), session)
    conv, fork = read.conversations
    assert [(t.role, t.content.split("\n\n")[0]) for t in conv.turns] == [
        ("user", "why is the build red?"), ("assistant", "A missing header."),
        ("user", "and the fix?"), ("assistant", "Add the include.")]
    assert "tool call: read_file" in conv.turns[1].content and "fatal: x.h" in conv.turns[1].content
    assert conv.turns[1].thinking == "Log read it" and conv.turns[1].usage == {
        "prompt_tokens": 10, "cache_write_tokens": 0, "cache_read_tokens": 0, "completion_tokens": 3,
        "reasoning_tokens": 1}  # Gemini's thoughts: part of the output, said apart
    assert [n["kind"] for n in conv.turns[1].injected] == ["command", "compaction summary", "context"]
    assert conv.turns[0].injected[0]["kind"] == "context" and conv.origin["cwd"] == "/home/dev/app"
    assert fork.fork_of == "s1" and fork.fork_at == 2
    assert [t.content for t in fork.turns[2:]] == ["and in C++?", "Include <x.h>."]
    assert read.said == [], read.said


def test_a_compression_that_writes_the_kept_history_again_under_new_ids_adds_nothing_twice(tmp_path):
    """As the real Gemini CLI 0.61 TUI writes /compress (seen by a new user): its summary (here in no
    <state_snapshot> form, as a model may answer), its "Got it", then the kept tail again, new ids, no model."""
    said = [message(n, "user" if n % 2 else "gemini", f"say {n}", **({} if n % 2 else {"model": "g"}))
            for n in range(1, 7)]
    session = tmp_path / "proj" / "chats" / "session-2026-11-28T10-00-aaaa0001.jsonl"
    session.parent.mkdir(parents=True)
    kept = [{**m, "id": f"new{m['id']}", "model": None} for m in said[2:]]
    session.write_text(log(
        {"sessionId": "s1", "startTime": "2026-11-28T10:00:00.000Z"},
        {"$set": {"messages": [message(0, "user", "<session_context>linux")]}}, *said,
        {"$set": {"messages": [message(0, "user", "<session_context>linux"), message(7, "user", '{"summary": 1}'),
                               message(8, "gemini", "Got it."), *kept]}},
        message(9, "user", "say 9"), message(10, "gemini", "say 10", model="g")))
    (conv,) = importers.read(sources.source("gemini").reader(), session).conversations
    assert [t.content for t in conv.turns] == ["say 1", "say 2", "say 3", "say 4", "say 5", "say 6", "say 9", "say 10"]
    assert [n["kind"] for n in conv.turns[5].injected] == ["compaction summary", "context"]


def test_a_shell_command_and_a_referenced_file_are_gemini_clis_words_not_the_question(tmp_path):
    """Found by a new user in the TUI: `!ls` became the first question and the title, `@notes.txt` put the file's
    text in the question; Gemini CLI keeps what was typed as displayContent."""
    session = tmp_path / "proj" / "chats" / "session-2026-11-28T10-00-aaaa0001.jsonl"
    session.parent.mkdir(parents=True)
    session.write_text(log(
        {"sessionId": "s1", "startTime": "2026-11-28T10:00:00.000Z"},
        message(1, "user", [{"text": "I ran the following shell command:\n```sh\nls\n```\n\nThis produced: a"}]),
        message(2, "user", [{"text": "what do my @notes.txt say"}, {"text": "\n--- Content from referenced files ---"},
                            {"text": "hello file"}, {"text": "\n--- End of content ---"}],
                displayContent=[{"text": "what do my @notes.txt say"}]),
        message(3, "gemini", "They say hello.", model="g")))
    (conv,) = importers.read(sources.source("gemini").reader(), session).conversations
    assert [t.content for t in conv.turns] == ["what do my @notes.txt say", "They say hello."]
    assert conv.title == "what do my @notes.txt say"
    assert [n["kind"] for n in conv.turns[0].injected] == ["shell command", "referenced files"]


def test_an_older_gemini_session_of_one_json_object_is_read(tmp_path):
    session = tmp_path / "session-2025-06-01T10-00-bbbb0002.json"
    session.write_text(json.dumps({"sessionId": "s2", "projectHash": "h", "startTime": "2025-06-01T10:00:00.000Z",
                                   "messages": [message(1, "user", "hello"),
                                                message(2, "gemini", "Hi.", model="gemini-2.5-pro")]}))
    (conv,) = importers.read(sources.source("gemini").reader(), session).conversations
    assert [t.content for t in conv.turns] == ["hello", "Hi."] and conv.source_id == "s2"


def test_a_conversation_handed_to_gemini_is_resumed_by_it_and_comes_back_once(gemini, fake, tmp_path, monkeypatch):
    ok("ask", "remember: my name is Zed")
    home, project = tmp_path / "user", tmp_path / "proj"
    project.mkdir()
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(THEIRS)
    monkeypatch.chdir(project)
    handed = json.loads(ok("handoff", "--to", "gemini", "--json", env={"HOME": str(home)}).stdout)
    assert handed["resume"] == ["gemini", "--resume", handed["session"]]
    with GeminiFake(reply="Your name is Zed.") as server:
        Gemini(gemini, project, home, server)("--resume", handed["session"], "-p", "what is my name?")
        sent = [r["body"] for r in server.requests if r["body"].get("tools")][-1]
    assert "my name is Zed" in json.dumps(sent["contents"])
    ok("import", "--from", "gemini", env={"HOME": str(home)})
    (conv,) = json.loads(ok("list", "--json").stdout)
    assert conv["turns"] == 4
