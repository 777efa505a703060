"""conv connect's scope and its truth: a project's connection is that
project's alone (its hooks, its conv mcp, its captures) and taking it out
never touches the user-wide one; capture.never keeps folders out; the
status says each tool's MCP server and whose it is, the folders kept out and
what the capture has still to do; hostile settings files (a FIFO, a link to
/dev/zero, Codex's inline and dotted tables, a read-only state folder, the
user's own exclude line) are left as they were."""

import json
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from conftest import conv_env, fails, git, ok, run_conv
from test_capture import handed, hook, late_transcript, listed, queue_empty, until


@pytest.fixture
def claude(tmp_path, monkeypatch):
    folder = tmp_path / "claude"
    folder.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    return folder / "settings.json"


@pytest.fixture
def codex(tmp_path, monkeypatch):
    folder = tmp_path / "codex"
    folder.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(folder))
    return folder / "config.toml"


def project_at(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    return path


def session_in(claude: Path, cwd: str, answer: str) -> Path:
    """A whole Claude Code session worked on in ``cwd``."""
    session, exchange = late_transcript(claude.parent / "projects", answer)
    lines = [line.replace('"/home/dev/late"', json.dumps(cwd)) for line in exchange]
    target = session.with_name(f"{abs(hash(cwd))}.jsonl")
    target.write_text("".join(lines))
    session.unlink()
    return target


def stop(session: Path, cwd: str) -> bytes:
    """Claude Code's Stop hook's JSON for ``session``, worked on in ``cwd``."""
    return json.dumps({"session_id": session.stem, "transcript_path": str(session), "cwd": cwd,
                       "hook_event_name": "Stop"}).encode()


def test_a_project_connection_captures_that_project_only_and_its_removal_keeps_the_user_wide_mcp(
        claude_code, tmp_path, monkeypatch):
    user = tmp_path / "user"
    user.mkdir()
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("PATH", f"{claude_code.parent}:{os.environ['PATH']}")
    app, other = project_at(tmp_path / "app"), project_at(tmp_path / "other")
    monkeypatch.chdir(app)
    said = ok("connect", "claude-code", "--project").stdout.decode()
    assert "conv mcp is its MCP server for this project (claude mcp add --scope local)" in said
    state = json.loads((user / ".claude.json").read_text())
    assert "conv" not in state.get("mcpServers", {}) and "conv" in state["projects"][str(app)]["mcpServers"]

    claude = user / ".claude" / "settings.json"
    claude.parent.mkdir(parents=True, exist_ok=True)
    for where, answer in ((other / "src", "Not this one."), (app / "src", "This one.")):
        assert hook("claude-code", stdin=stop(session_in(claude, str(where), answer), str(where))).returncode == 0
    until(lambda: len(listed()) == 1 and queue_empty())
    time.sleep(1.5)
    assert [c["title"] for c in listed()] == ["why is the build red?"]
    shown = json.loads(ok("show", listed()[0]["id"], "--json").stdout)
    assert shown["turns"][-1]["content"] == "This one."
    status = json.loads(ok("connect", "--json").stdout)["tools"][0]
    assert status["projects"] == [str(app)] and status["mcp"] == [f"{app}: conv mcp"]

    monkeypatch.chdir(tmp_path)
    ok("connect", "claude-code")  # user-wide too
    monkeypatch.chdir(app)
    removed = ok("connect", "claude-code", "--project", "--remove").stdout.decode()
    assert "no longer its MCP server for this project" in removed
    state = json.loads((user / ".claude.json").read_text())
    assert "conv" in state["mcpServers"] and "conv" not in state["projects"][str(app)].get("mcpServers", {})
    status = json.loads(ok("connect", "--json").stdout)["tools"][0]
    assert status["connected"] == [str(claude)] and status["mcp"] == ["user-wide: conv mcp"]


def test_capture_never_keeps_a_folder_out_of_hooks_and_catch_up_and_is_said(claude, tmp_path):
    ok("connect", "claude-code")
    private = tmp_path / "private"
    ok("config", "set", "capture.never", f"{private}, ~/clients")
    assert f"never captured: {private}, ~/clients (capture.never)" in ok("connect").stdout.decode()
    for where, answer in ((private / "notes", "Secret plans."), (tmp_path / "public", "Open plans.")):
        hook("claude-code", stdin=stop(session_in(claude, str(where), answer), str(where)))
    until(lambda: len(listed()) == 1 and queue_empty())
    ok("config", "set", "import.auto", "on")
    ok("list")
    time.sleep(3)
    until(queue_empty)
    texts = [t["content"] for c in listed() for t in json.loads(ok("show", c["id"], "--json").stdout)["turns"]]
    assert "Open plans." in texts and "Secret plans." not in texts


def test_a_relative_folder_is_refused_for_capture_never():
    said = fails("config", "set", "capture.never", "relative/folder", code=2)
    assert "'relative/folder' is no absolute folder" in said


def test_connect_all_passes_over_a_tool_not_on_this_machine(claude, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex"))
    said = ok("connect", "all").stdout.decode()
    assert "codex: passed over: Codex is not on this machine" in said
    assert not (tmp_path / "no-codex").exists()
    ok("connect", "codex")  # asked for by name: made
    assert (tmp_path / "no-codex" / "config.toml").exists()


def test_a_hook_deleted_by_hand_is_put_back(claude):
    ok("connect", "claude-code")
    claude.write_text("{}\n")
    assert "conv's hook put back in" in ok("connect", "claude-code").stdout.decode()


def test_codexs_own_conv_server_is_said_as_another_program(codex):
    codex.write_text('[mcp_servers.conv]\ncommand = "/opt/conversation-server"\nargs = ["--stdio"]\n')
    said = ok("connect", "codex").stdout.decode()
    assert "runs another program (/opt/conversation-server), not conv mcp: left as it is" in said
    assert "conv mcp is its MCP server" not in said
    assert json.loads(ok("connect", "--json").stdout)["tools"][1]["mcp"] == [
        "user-wide: another program (/opt/conversation-server), not conv mcp"]


@pytest.mark.parametrize("text", [
    'model = "o3"\nmcp_servers = { other = { command = "a" } }\n',
    'model = "o3"\nmcp_servers.other.command = "a"\nmcp_servers.other.args = ["b"]\nmy_key = 1\n\n[tui]\nx = 1\n',
])
def test_codexs_mcp_servers_as_inline_or_dotted_keys_keep_their_meaning(codex, text):
    codex.write_text(text)
    ok("connect", "codex")
    after = tomllib.loads(codex.read_text())
    before = tomllib.loads(text)
    assert after["mcp_servers"]["other"] == before["mcp_servers"]["other"] and after["model"] == "o3"
    assert after["mcp_servers"]["conv"]["args"][-1] == "mcp" and after["notify"][-2:] == ["capture", "codex"]
    assert {k: v for k, v in after.items() if k not in ("notify", "mcp_servers")} == \
        {k: v for k, v in before.items() if k != "mcp_servers"}
    ok("connect", "codex", "--remove")
    assert codex.read_text() == text


def test_a_fifo_or_a_device_as_settings_is_refused_at_once(claude, tmp_path):
    os.mkfifo(claude)
    started = time.monotonic()
    said = fails("connect", "claude-code", code=1)
    assert "is not a plain file" in said and time.monotonic() - started < 10
    claude.unlink()
    claude.symlink_to("/dev/zero")
    assert "is not a plain file" in fails("connect", "claude-code", code=1)
    assert claude.is_symlink()


def test_a_state_folder_conv_cannot_write_leaves_the_settings_as_they_were(claude):
    claude.write_text('{"model": "opus"}\n')
    state = Path(os.environ["CONV_HOME"]) / "state"
    state.mkdir(parents=True, exist_ok=True)
    (state / "connected.json").mkdir()  # (root writes anywhere: a folder where the record goes blocks it)
    said = fails("connect", "claude-code", code=1)
    assert "conv's state folder cannot be written" in said and "nothing changed" in said
    assert claude.read_text() == '{"model": "opus"}\n'


def test_removing_a_project_connection_leaves_the_users_own_exclude_lines(tmp_path, monkeypatch):
    project = project_at(tmp_path / "proj")
    exclude = project / ".git" / "info" / "exclude"
    mine = b"# mine\r\n/.claude/settings.local.json\r\n*.log\r\n"
    exclude.write_bytes(mine)
    monkeypatch.chdir(project)
    ok("connect", "claude-code", "--project")
    ok("connect", "claude-code", "--project", "--remove")
    assert exclude.read_bytes() == mine  # the line was the user's: it stays, and so do the CRLFs
    exclude.write_bytes(b"# mine\r\n*.log")
    ok("connect", "claude-code", "--project")
    assert exclude.read_bytes() == b"# mine\r\n*.log\r\n/.claude/settings.local.json\r\n"
    ok("connect", "claude-code", "--project", "--remove")
    assert exclude.read_bytes() == b"# mine\r\n*.log\r\n"


def test_a_project_file_the_tool_only_marked_with_its_format_goes_with_the_connection(tmp_path, monkeypatch):
    """Qwen Code writes "$version": 2 into every settings file it reads; conv --project --remove then left
    .qwen/settings.json holding only that, and let .qwen/ back into git: an untracked file nobody made."""
    project = project_at(tmp_path / "proj")
    monkeypatch.chdir(project)
    ok("connect", "qwen", "--project")
    settings = project / ".qwen" / "settings.json"
    doc = json.loads(settings.read_text())
    settings.write_text(json.dumps({"$version": 2, **doc}, indent=2) + "\n")  # as Qwen Code 0.24 rewrites it
    ok("connect", "qwen", "--project", "--remove")
    assert not (project / ".qwen").exists()
    assert git(project, "status", "--porcelain") == ""
    ok("connect", "qwen", "--project")
    doc = json.loads(settings.read_text())
    settings.write_text(json.dumps({"$version": 2, "model": {"name": "mine"}, **doc}, indent=2) + "\n")
    ok("connect", "qwen", "--project", "--remove")
    assert json.loads(settings.read_text()) == {"$version": 2, "model": {"name": "mine"}}  # the user's: kept


def test_the_capture_backlog_is_said_by_the_status(claude, store_path):
    ok("connect", "claude-code")
    store_path.parent.mkdir(parents=True, exist_ok=True)
    store_path.write_text("not a store")  # every capture fails
    session = session_in(claude, "/home/dev/app", "An answer.")
    hook("claude-code", stdin=handed(session))
    failed = Path(os.environ["CONV_HOME"]) / "state" / "capture" / "failed"
    until(lambda: queue_empty() and failed.exists() and any(failed.iterdir()))
    state = json.loads(run_conv("connect", "--json").stdout)["backlog"]
    assert state["failed"] == [{"source": "claude-code", "session": str(session), "tries": 1}]
    said = run_conv("connect").stderr.decode()
    assert f"the claude-code session {session} failed 1 time; it is tried again" in said


def test_an_exchange_written_while_the_last_capture_commits_is_read_next_time(claude, monkeypatch):
    from conv.services.imports import import_from
    from conv.services.workspace import Workspace
    from conv.store import Store

    session, exchange = late_transcript(claude.parent / "projects", "First answer.")
    session.write_text("".join(exchange))
    ingest = Store.ingest
    later = exchange[1].replace('"a1"', '"a2"').replace('"q1"', '"a1"').replace("First answer.", "More of it.")

    def ingest_while_the_tool_writes(self, *args, **kw):
        done = ingest(self, *args, **kw)
        with open(session, "a") as out:  # the tool wrote on while the capture committed
            out.write(later)
        return done

    monkeypatch.setattr(Store, "ingest", ingest_while_the_tool_writes)
    import_from(Workspace(notice=lambda line: None), "claude-code", str(session))
    monkeypatch.setattr(Store, "ingest", ingest)
    again = json.loads(ok("import", "--from", "claude-code", str(session), "--json").stdout)
    assert again["unchanged_files"] == 0 and "More of it." in json.dumps(ok("show", listed()[0]["id"],
                                                                              "--json").stdout.decode())


def test_capture_for_a_tool_conv_does_not_know_is_a_usage_error():
    done = subprocess.run([sys.executable, "-m", "conv", "capture", "windsurf"], capture_output=True, env=conv_env(),
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and b"conv captures no tool called 'windsurf'" in done.stderr


def test_a_folder_where_the_settings_file_goes_is_one_line_and_the_others_go_on(claude, codex):
    claude.mkdir()
    done = run_conv("connect", "all")
    said = done.stderr.decode()
    assert done.returncode == 1 and "Traceback" not in said and f"{claude} is a folder, not a settings file" in said
    assert "codex: connected" in done.stdout.decode()
    status = run_conv("connect")
    assert status.returncode == 0 and "settings unreadable" in status.stdout.decode()
    assert "Traceback" not in run_conv("connect", "claude-code", "--remove").stderr.decode()


def test_a_read_only_settings_file_is_left_as_it_is(claude):
    claude.write_text('{"model": "opus"}\n')
    claude.chmod(0o444)
    said = fails("connect", "claude-code", code=1)
    assert "is read-only (mode 0444)" in said and "chmod u+w" in said
    assert claude.read_text() == '{"model": "opus"}\n' and oct(claude.stat().st_mode & 0o777) == "0o444"


def test_a_hook_taken_out_of_one_event_shows_in_the_table(claude):
    ok("connect", "claude-code")
    settings = json.loads(claude.read_text())
    del settings["hooks"]["Stop"]
    claude.write_text(json.dumps(settings))
    assert "connected, incomplete" in ok("connect").stdout.decode()


def test_an_import_from_a_tools_own_place_leaves_out_capture_never_too(claude, tmp_path):
    private = tmp_path / "private"
    ok("config", "set", "capture.never", str(private))
    session_in(claude, str(private / "x"), "Secret plans.")
    session_in(claude, str(tmp_path / "public"), "Open plans.")
    ok("import", "--from", "claude-code")
    texts = json.dumps([json.loads(ok("show", c["id"], "--json").stdout) for c in listed()])
    assert "Open plans." in texts and "Secret plans." not in texts
    named = sorted((claude.parent / "projects").glob("*/*.jsonl"))
    for session in named:  # named by hand, a file is taken in whatever it is
        ok("import", "--from", "claude-code", str(session))
    assert "Secret plans." in json.dumps([json.loads(ok("show", c["id"], "--json").stdout) for c in listed()])


def test_connect_all_finds_a_tool_by_its_own_folder_not_the_one_convs_hook_goes_in(tmp_path, monkeypatch):
    """pi, opencode, Cline and Copilot make their own folders, never the hooks folder conv's file goes in."""
    monkeypatch.setenv("HOME", str(tmp_path / "user"))  # no other tool there
    own = {"PI_CODING_AGENT_DIR": tmp_path / "pi", "XDG_CONFIG_HOME": tmp_path / "config",
           "CLINE_DIR": tmp_path / "cline", "COPILOT_HOME": tmp_path / "copilot"}
    for name, folder in own.items():
        monkeypatch.setenv(name, str(folder))
    (tmp_path / "pi" / "sessions").mkdir(parents=True)
    (tmp_path / "config" / "opencode").mkdir(parents=True)
    (tmp_path / "cline" / "data").mkdir(parents=True)
    (tmp_path / "copilot" / "session-state").mkdir(parents=True)
    said = ok("connect", "all").stdout.decode()
    assert "claude-code: passed over" in said
    for tool in ("pi", "opencode", "cline", "copilot"):
        assert f"{tool}: connected" in said, said
    assert {t["tool"]: t["present"] for t in json.loads(ok("connect", "--json").stdout)["tools"]
            if t["tool"] in ("pi", "opencode", "cline", "copilot")} == dict.fromkeys(
        ("pi", "opencode", "cline", "copilot"), True)


def test_what_import_auto_would_take_in_is_said_once(tmp_path):
    home = {"HOME": str(tmp_path / "user")}
    first = ok("connect", "claude-code", env=home).stderr.decode()
    assert "conv config set import.auto on takes them in" in first and "aider" in first
    again = ok("connect", "codex", env=home).stderr.decode()
    assert "import.auto" not in again  # the same line after each tool: said once


def test_a_tool_installed_but_never_run_is_on_this_machine(qwen_code, tmp_path):
    env = {"HOME": str(tmp_path / "fresh"), "PATH": f"{qwen_code.parent}:{os.environ['PATH']}"}
    def state(env: dict) -> str:
        return next(line for line in ok("connect", env=env).stdout.decode().splitlines() if line.startswith("qwen"))

    assert "not on this machine" in state({**env, "PATH": "/usr/bin:/bin"})
    assert "could be" in state(env)  # no ~/.qwen yet, but qwen on PATH
    said = ok("connect", "all", env=env).stdout.decode()
    assert "qwen: connected" in said and (tmp_path / "fresh" / ".qwen" / "settings.json").exists()
