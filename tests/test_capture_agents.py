"""After ``conv connect``, the real Claude Code and Codex (installed from npm
by the suite, against the loopback fakes) hand each exchange to conv through
their own extension points, and it is in the store with no conv command
typed: once, with its tool calls, and still there when the agent's own
transcript is gone. ``--remove`` gives back the user's settings byte for
byte, their own hook and comments included."""

import json
import os
import shutil
import time

from anthropic_fake import AnthropicFake
from conftest import git, ok
from responses_fake import ResponsesFake, message
from test_import_claude_code import ClaudeCode
from test_import_codex import Codex

MINE = "the build fails on arm64\n"


def stored(turns: int, within: float = 30, conversations: int = 1):
    """The one conversation in the store once it has ``turns`` turns (the
    capture runs in the background); with ``conversations``, the listing once
    there are that many, the newest with ``turns``."""
    deadline = time.monotonic() + within
    while True:
        listed = json.loads(ok("list", "--json").stdout)
        if len(listed) == conversations and listed[0]["turns"] >= turns:
            if conversations > 1:
                return listed
            return json.loads(ok("show", listed[0]["id"], "--json").stdout)
        assert len(listed) <= conversations, listed
        assert time.monotonic() < deadline, f"not captured within {within} s: {listed}"
        time.sleep(0.2)


def test_claude_code_runs_and_a_continue_are_captured_once_with_their_tool_calls(claude_code, tmp_path, store_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "notes.txt").write_text(MINE)
    home = tmp_path / "user"  # Claude Code's HOME
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    ran = tmp_path / "their-hook-ran"
    theirs = ('{\n  "model": "opus",\n  "hooks": {\n    "Stop": [\n      {\n        "hooks": [\n          {\n'
              f'            "type": "command",\n            "command": "echo stop >> {ran}"\n          }}\n'
              '        ]\n      }\n    ]\n  }\n}\n')
    settings.write_text(theirs)
    path = f"{claude_code.parent}:{os.environ['PATH']}"  # claude on PATH: conv connect registers conv mcp with it
    connected = ok("connect", "claude-code", env={"HOME": str(home), "PATH": path}).stdout.decode()
    assert str(settings) in connected and "Stop, SessionEnd, PreCompact" in connected
    assert "conv mcp is its MCP server (claude mcp add --scope user)" in connected

    with AnthropicFake() as server:
        agent = ClaudeCode(claude_code, project, home, server)
        server.script = [
            [{"type": "tool_use", "id": "toolu_01", "name": "Read",
              "input": {"file_path": str(project / "notes.txt")}}],
            [{"type": "text", "text": "Your notes say the build fails on arm64."}]]
        agent("what do my notes say?")
        conv = stored(2)
        question, answer = conv["turns"]
        assert question["content"] == "what do my notes say?"
        assert "```tool call: Read" in answer["content"] and "the build fails on arm64" in answer["content"]
        assert answer["content"].endswith("Your notes say the build fails on arm64.")

        server.script = [[{"type": "text", "text": "En français : la compilation échoue sur arm64."}]]
        agent("--continue", "and in French?")
        conv = stored(4)
        assert [t["content"] for t in conv["turns"][2:]] == ["and in French?",
                                                             "En français : la compilation échoue sur arm64."]
        # the next session finds it through conv mcp, registered user-wide by conv connect
        server.script = [[{"type": "tool_use", "id": "toolu_9", "name": "mcp__conv__search",
                           "input": {"query": "arm64", "here": str(project)}}],
                         [{"type": "text", "text": "You asked about arm64 before."}]]
        agent("what did I ask before?", "--allowedTools", "mcp__conv__search")
        found = [b for m in server.requests[-1]["messages"] if isinstance(m["content"], list)
                 for b in m["content"] if b.get("type") == "tool_result"]
        assert conv["id"] in json.dumps(found) and "arm64" in json.dumps(found)
    assert ran.read_text().count("stop") == 3  # the user's own hook still ran, after each answer

    sessions = stored(2, conversations=2)  # that session too, captured
    head = git(store_path, "rev-parse", "HEAD")
    shutil.rmtree(home / ".claude" / "projects")  # Claude Code's cleanup, 30 days on
    assert json.loads(ok("list", "--json").stdout) == sessions and git(store_path, "rev-parse", "HEAD") == head
    assert json.loads(ok("list", "--source", "claude-code", "--json").stdout)[0]["source"] == "claude-code"
    assert json.loads(ok("list", "--source", "conv", "--json").stdout) == []
    git(store_path, "fsck", "--strict")

    removed = ok("connect", "claude-code", "--remove", env={"HOME": str(home), "PATH": path}).stdout.decode()
    assert "disconnected" in removed and "conv mcp is no longer its MCP server" in removed
    assert settings.read_text() == theirs
    assert json.loads((home / ".claude.json").read_text()).get("mcpServers") == {}


def test_codex_exec_and_its_resume_are_captured_once_and_the_users_notify_still_runs(codex, tmp_path, store_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "notes.txt").write_text(MINE)
    git(project, "init", "-q")
    heard = tmp_path / "their-notify-heard"
    notifier = tmp_path / "notifier.sh"
    notifier.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> {heard}\n')
    notifier.chmod(0o755)
    with ResponsesFake() as server:
        agent = Codex(codex, project, tmp_path / "codex-home", server)
        config = agent.home / "config.toml"
        theirs = f"# my Codex\nnotify = [\"{notifier}\"]  # tells me when it is done\n" + config.read_text()
        config.write_text(theirs)
        ok("connect", "codex", env={"CODEX_HOME": str(agent.home)})
        assert "capture" in config.read_text() and "# tells me when it is done" in config.read_text()

        server.script = [
            [{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "exec_command",
              "arguments": json.dumps({"cmd": "cat notes.txt"})}],
            [message("Your notes say the build fails on arm64.")]]
        agent("what do my notes say?")
        conv = stored(2)
        question, answer = conv["turns"]
        assert question["content"] == "what do my notes say?"
        assert '```tool call: exec_command\n{"cmd": "cat notes.txt"}\n```' in answer["content"]
        assert answer["content"].endswith("Your notes say the build fails on arm64.")

        server.script = [[message("En français : la compilation échoue sur arm64.")]]
        agent("resume", "--last", "and in French?")
        conv = stored(4)
        assert conv["turns"][3]["content"] == "En français : la compilation échoue sur arm64."
        # a new session finds it through conv mcp, conv connect's [mcp_servers.conv]
        server.script = [[{"type": "function_call", "id": "fc_9", "call_id": "call_9", "namespace": "mcp__conv",
                           "name": "search", "arguments": json.dumps({"query": "arm64", "source": "codex"})}],
                         [message("You asked about arm64 before.")]]
        agent("what did I ask before?")
        found = [i.get("output") for i in server.requests[-1]["input"] if i.get("type") == "function_call_output"]
        assert conv["id"] in json.dumps(found), found
    deadline = time.monotonic() + 10
    while not (heard.exists() and heard.read_text().count("agent-turn-complete") == 3):
        assert time.monotonic() < deadline, "the user's own notify program did not run after each turn"
        time.sleep(0.1)

    sessions = stored(2, conversations=2)  # that session too, captured
    head = git(store_path, "rev-parse", "HEAD")
    shutil.rmtree(agent.home / "sessions")
    assert json.loads(ok("list", "--json").stdout) == sessions and git(store_path, "rev-parse", "HEAD") == head
    git(store_path, "fsck", "--strict")

    ok("connect", "codex", "--remove", env={"CODEX_HOME": str(agent.home)})
    assert config.read_text() == theirs
