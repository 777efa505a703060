"""GitHub Copilot CLI, the real one (installed from npm by the suite), with
no account, against the loopback OpenAI fake (its offline mode): after
``conv connect copilot`` its runs, a resume and a tool call are in the store
with no conv command typed, once; conv mcp, written into its
mcp-config.json, answers it; its own files deleted change nothing;
``--remove`` takes conv's hooks file and its MCP entry out, the user's own
kept. A conversation handed off is resumed by it."""

import json
import shutil

from agent_tuis import CopilotTUI, copilot_env, tui_env
from conftest import FakeServer, conv_env, git, ok
from real_tools import Headless
from shells import Tmux
from test_capture_agents import stored

from conv import importers, sources

THEIRS = json.dumps({"mcpServers": {"docs": {"type": "local", "command": "docs-mcp", "tools": ["*"]}}}, indent=2) + "\n"


class Copilot(Headless):
    """The real Copilot CLI in ``project``, with its own HOME, asking ``server`` in its offline mode."""

    extra = ("--allow-all-tools",)

    def __init__(self, binary, project, home, server):
        self.binary, self.project = binary, project
        self.env = conv_env(copilot_env(home, server))


def test_copilot_runs_a_resume_and_a_tool_call_are_captured_once_and_conv_mcp_answers_it(copilot, tmp_path,
                                                                                        store_path):
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    git(project, "init", "-q")
    servers = home / ".copilot" / "mcp-config.json"
    servers.parent.mkdir(parents=True)
    servers.write_text(THEIRS)
    said = ok("connect", "copilot", env={"HOME": str(home)}).stdout.decode()
    hooks = home / ".copilot" / "hooks" / "conv.json"
    assert f"copilot: connected: conv's hook added to {hooks}" in said and "agentStop, sessionEnd" in said
    assert "conv mcp is its MCP server (mcp-config.json)" in said
    assert json.loads(servers.read_text())["mcpServers"]["docs"]["command"] == "docs-mcp"

    with FakeServer(reply="It printed hi.") as server:
        agent = Copilot(copilot, project, home, server)
        server.set(tool_call=("bash", json.dumps({"command": "echo hi", "description": "say hi"})))
        assert "It printed hi." in agent("-p", "run echo hi")
        conv = stored(2)
        question, answer = conv["turns"]
        assert question["content"] == "run echo hi" and answer["model"] == "fake-model"
        assert "```tool call: bash" in answer["content"] and "hi" in answer["content"].split("tool result: bash")[1]
        assert answer["content"].endswith("It printed hi.")
        assert conv["imported_from"]["source"] == "copilot" and conv["imported_from"]["cwd"] == str(project)

        server.set(tool_call=None, reply="En français : il a affiché hi.")
        agent("--continue", "-p", "and in French?")
        conv = stored(4)
        assert [t["content"] for t in conv["turns"][2:]] == ["and in French?", "En français : il a affiché hi."]
        # a new session asks conv mcp, which conv connect put in its mcp-config.json
        server.set(tool_call=("conv-search", json.dumps({"query": "echo"})), reply="You ran echo before.")
        agent("-p", "what did I run before?")
        handed = [m for r in server.requests for m in r.get("messages", []) if m.get("role") == "tool"]
        assert conv["id"] in json.dumps(handed), handed

    both = stored(2, conversations=2)
    searched = json.loads(ok("show", both[0]["id"], "--json").stdout)["turns"][1]["content"]
    assert "tool call: conv-search" in searched and conv["id"] not in searched  # conv's own answer kept aside
    head = git(store_path, "rev-parse", "HEAD")
    shutil.rmtree(home / ".copilot" / "session-state")
    assert json.loads(ok("list", "--json").stdout) == both and git(store_path, "rev-parse", "HEAD") == head
    git(store_path, "fsck", "--strict")

    ok("connect", "copilot", "--remove", env={"HOME": str(home)})
    assert not hooks.exists() and json.loads(servers.read_text()) == json.loads(THEIRS)


def event(kind: str, n: int, **data) -> dict:
    return {"type": kind, "data": data, "id": f"e{n}", "timestamp": f"2026-11-28T10:00:{n:02d}.000Z",
            "parentId": f"e{n - 1}" if n else None}


def test_what_copilot_wrote_itself_is_kept_with_its_turn_and_never_a_question(tmp_path):
    session = tmp_path / "s1" / "events.jsonl"
    session.parent.mkdir()
    session.write_text("".join(json.dumps(e) + "\n" for e in [
        event("session.start", 0, sessionId="s1", context={"cwd": "/w", "branch": "main"}),
        event("user.message", 1, content="why is the build red?"),
        event("session.usage_record", 2, usage={"inputTokens": 10, "outputTokens": 2, "apiCallId": "a1"}),
        event("assistant.message", 3, content="A missing header.", model="gpt-x", toolRequests=[]),
        event("user.message", 4, content="<skill>pdf</skill>", source="skill-pdf"),
        {**event("assistant.message", 5, content="a sub-agent's own words"), "agentId": "sub1"},
        event("session.compaction_complete", 6, summaryContent="the build, a header"),
        event("hook.start", 7, hookType="agentStop", input={}),
        event("user.message", 8, content="and the fix?"),
        event("assistant.message", 9, content="Add the include.", model="gpt-x")]))
    read = importers.read(sources.source("copilot").reader(), session)
    (conv,) = read.conversations
    assert [(t.role, t.content) for t in conv.turns] == [
        ("user", "why is the build red?"), ("assistant", "A missing header."),
        ("user", "and the fix?"), ("assistant", "Add the include.")]
    assert conv.turns[1].usage == {"prompt_tokens": 10, "cache_write_tokens": 0, "cache_read_tokens": 0,
                                   "completion_tokens": 2, "reasoning_tokens": 0}
    assert [n["kind"] for n in conv.turns[1].injected] == ["skill-pdf", "compaction summary"]
    assert conv.origin == {"cwd": "/w", "git_branch": "main"} and read.said == []


def test_a_session_opening_with_a_bang_command_opens_with_the_question(tmp_path):
    """As Copilot 1.0.102 writes a ``!`` command: its local_shell call, then its result marked user-requested (an
    older one, unmarked, is known by its call's id)."""
    session = tmp_path / "s1" / "events.jsonl"
    session.parent.mkdir()
    session.write_text("".join(json.dumps(e) + "\n" for e in [
        event("session.start", 0, sessionId="s1", context={"cwd": "/w"}),
        event("tool.user_requested", 1, toolCallId="c1", toolName="local_shell",
              arguments={"command": "make test", "description": "Execute shell command: make test"}),
        event("tool.execution_complete", 2, toolCallId="c1", isUserRequested=True, success=False,
              shellExecution={"exitCode": 2}, result={"content": "1 failed"}),
        event("user.message", 3, content="why did it fail?"),
        event("assistant.message", 4, content="A typo.", model="gpt-x"),
        event("tool.user_requested", 5, toolCallId="c2", toolName="local_shell", arguments={"command": "ls"}),
        event("tool.execution_complete", 6, toolCallId="c2", success=True, result={"content": "a.py"})]))
    (conv,) = importers.read(sources.source("copilot").reader(), session).conversations
    assert [(t.role, t.content) for t in conv.turns] == [("user", "why did it fail?"), ("assistant", "A typo.")]
    assert conv.turns[0].injected == [{"kind": "shell command", "text": "!make test"},
                                      {"kind": "shell output", "text": "1 failed\n[exit 2]"}]
    assert conv.turns[1].injected == [{"kind": "shell command", "text": "!ls"},
                                      {"kind": "shell output", "text": "a.py"}]
    assert conv.turns[1].commands == []  # the person's, not the answer's


def test_a_bang_command_in_its_tui_is_kept_with_the_question_after_it_never_as_an_answer(copilot, tmp_path,
                                                                                        store_path):
    """Found tried in the TUI: a ``!`` command's output opened the conversation as an answer (its
    tool.execution_complete), and the command itself (tool.user_requested) was not kept at all."""
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    git(project, "init", "-q")
    ok("connect", "copilot", env={"HOME": str(home)})
    with FakeServer(reply="It printed marker-one.") as server, Tmux(tmp_path) as tmux:
        tui = CopilotTUI(tmux, copilot, project, home, server, tui_env())
        tui.shell("echo marker-one", r"│ marker-one")
        tui.ask("what did that print?", "It printed marker-one.")
        assert "marker-one" in json.dumps(server.requests[-1]["messages"])  # Copilot gave the model the output
        tui.shell("printf 'two\\nlines'", r"│ lines")
        tui.ask("and now?", "It printed marker-one.")
        conv = stored(4)
        tui.quit()
    first, answer, second, _ = conv["turns"]
    assert (first["role"], first["content"], second["content"]) == ("user", "what did that print?", "and now?")
    assert [(n["kind"], n["text"]) for n in first["injected"]] == [("shell command", "!echo marker-one"),
                                                                  ("shell output", "marker-one")]
    assert [(n["kind"], n["text"]) for n in answer["injected"]] == [("shell command", "!printf 'two\\nlines'"),
                                                                   ("shell output", "two\nlines")]
    assert answer["content"] == "It printed marker-one."  # no tool result of it


def test_a_conversation_handed_to_copilot_is_resumed_by_it_and_comes_back_once(copilot, fake, tmp_path, monkeypatch):
    ok("ask", "remember: my name is Zed")
    home, project = tmp_path / "user", tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    handed = json.loads(ok("handoff", "--to", "copilot", "--json", env={"HOME": str(home)}).stdout)
    assert handed["resume"] == ["copilot", f"--resume={handed['session']}"]
    with FakeServer(reply="Your name is Zed.") as server:
        Copilot(copilot, project, home, server)(f"--resume={handed['session']}", "-p", "what is my name?")
        sent = server.requests[-1]["messages"]
    assert any("my name is Zed" in json.dumps(m) for m in sent if m["role"] == "user")
    ok("import", "--from", "copilot", env={"HOME": str(home)})
    (conv,) = json.loads(ok("list", "--json").stdout)
    assert conv["turns"] == 4


def test_its_mcp_config_keeps_its_line_endings(tmp_path):
    """Found by a new user: a CRLF mcp-config.json came back LF after conv connect."""
    home = tmp_path / "user"
    config = home / ".copilot" / "mcp-config.json"
    config.parent.mkdir(parents=True)
    config.write_bytes(THEIRS.replace("\n", "\r\n").encode())
    ok("connect", "copilot", env={"HOME": str(home)})
    written = config.read_bytes()
    assert b"conv" in written and written.count(b"\n") == written.count(b"\r\n")
    ok("connect", "copilot", "--remove", env={"HOME": str(home)})
    assert b"\r\n" in config.read_bytes() and b"conv" not in config.read_bytes()
