"""conv connect writes conv's entry into the agents' own settings and takes it
out again: everything of the user's kept (other hooks, keys, order, indent,
comments), idempotent, and a file conv cannot read left as it is."""

import json
import os

import pytest
from conftest import fails, git, ok, run_conv


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


THEIRS = {"model": "opus", "permissions": {"allow": ["Bash(git log:*)"]},
          "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
                    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]}}


def hooks_of(settings) -> dict:
    return json.loads(settings.read_text())["hooks"]


def test_claude_codes_hooks_join_the_users_and_leave_them_as_they_were(claude):
    text = json.dumps(THEIRS, indent=4) + "\n"
    claude.write_text(text)
    claude.chmod(0o600)
    first = ok("connect", "claude-code").stdout.decode()
    assert f"connected: conv's hook added to {claude}" in first
    hooks = hooks_of(claude)
    assert list(hooks) == ["Stop", "PreToolUse", "SessionEnd", "PreCompact"]
    assert hooks["Stop"][0] == THEIRS["hooks"]["Stop"][0] and hooks["PreToolUse"] == THEIRS["hooks"]["PreToolUse"]
    command = hooks["Stop"][1]["hooks"][0]["command"]
    assert command.endswith("capture claude-code") and f"CONV_HOME={os.environ['CONV_HOME']}" in command
    assert claude.read_text().startswith('{\n    "model"')  # its own indent
    assert oct(claude.stat().st_mode & 0o777) == "0o600"

    written = claude.read_bytes()
    assert "already connected" in ok("connect", "claude-code").stdout.decode()
    assert claude.read_bytes() == written
    state = json.loads(ok("connect", "--json").stdout)
    assert state["tools"][0] == {"tool": "claude-code", "file": str(claude), "present": True,
                                 "connected": [str(claude)], "projects": [], "mcp": [], "problems": []}

    ok("connect", "claude-code", "--remove")
    assert claude.read_text() == text
    assert "not connected" in ok("connect", "claude-code", "--remove").stdout.decode()
    assert claude.read_text() == text


def test_removing_after_the_file_changed_takes_out_only_convs_entry(claude):
    claude.write_text(json.dumps(THEIRS, indent=2) + "\n")
    ok("connect", "claude-code")
    changed = json.loads(claude.read_text())
    changed["theme"] = "dark"  # Claude Code (or the user) wrote to it meanwhile
    claude.write_text(json.dumps(changed, indent=2) + "\n")
    ok("connect", "claude-code", "--remove")
    assert json.loads(claude.read_text()) == {**THEIRS, "theme": "dark"}


def test_a_new_settings_file_is_made_and_removed_again(claude):
    ok("connect", "claude-code")
    assert set(hooks_of(claude)) == {"Stop", "SessionEnd", "PreCompact"}
    ok("connect", "claude-code", "--remove")
    assert not claude.exists()


@pytest.mark.parametrize("text, why", [
    ('{"model": "opus", // mine\n}', "is not JSON"),
    ("[1, 2]", "is not a JSON object"),
    ('{"hooks": []}', '"hooks" is not an object'),
    ('{"hooks": {"Stop": {"hooks": []}}}', '"hooks.Stop" is not a list'),
    ('{"a": ' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
])
def test_settings_conv_cannot_read_are_left_as_they_are(claude, text, why):
    claude.write_text(text)
    said = fails("connect", "claude-code", code=1)
    assert f"claude-code: {claude} left as it is: it" in said and why in said
    assert claude.read_text() == text
    assert json.loads(ok("connect", "--json").stdout)["tools"][0]["connected"] == []


def test_settings_that_are_not_utf8_are_left_as_they_are(claude):
    claude.write_bytes(b'{"model": "\xff"}')
    assert "not UTF-8" in fails("connect", "claude-code", code=1)
    assert claude.read_bytes() == b'{"model": "\xff"}'


def test_a_linked_settings_file_stays_a_link(claude, tmp_path):
    dotfiles = tmp_path / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"model": "opus"}\n')
    claude.symlink_to(dotfiles)
    ok("connect", "claude-code")
    assert claude.is_symlink() and "capture claude-code" in dotfiles.read_text()
    ok("connect", "claude-code", "--remove")
    assert claude.is_symlink() and dotfiles.read_text() == '{"model": "opus"}\n'


def test_a_projects_own_settings_are_the_local_ones_kept_out_of_git(tmp_path, monkeypatch):
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    git(project, "init", "-q")
    monkeypatch.chdir(project / "src")
    ok("connect", "claude-code", "--project")
    assert "capture claude-code" in (project / ".claude" / "settings.local.json").read_text()
    assert git(project, "status", "--porcelain") == ""  # it names this machine's conv: kept out of git, locally
    ok("connect", "claude-code", "--project", "--remove")
    assert not (project / ".claude").exists()  # the folder conv made, gone with it
    assert "/.claude/settings.local.json" not in (project / ".git" / "info" / "exclude").read_text()
    monkeypatch.chdir(tmp_path)
    assert "no git work tree" in fails("connect", "claude-code", "--project", code=2)


CONFIG = '''# my Codex
model = "o3"  # the best one
notify = ["notify-send", "Codex"]  # tells me

[model_providers.fake]
name = "fake"   # a comment here too
'''


def test_codexs_notify_keeps_the_users_program_and_comments(codex):
    codex.write_text(CONFIG)
    ok("connect", "codex")
    text = codex.read_text()
    assert "# my Codex" in text and "# the best one" in text and "# a comment here too" in text
    import tomllib

    notify = tomllib.loads(text)["notify"]
    assert notify[notify.index("capture"):] == ["capture", "codex", "--then", "notify-send", "Codex"]
    assert "already connected" in ok("connect", "codex").stdout.decode()
    assert codex.read_text() == text
    ok("connect", "codex", "--remove")
    assert codex.read_text() == CONFIG


def test_codex_without_notify_gets_one_and_loses_it_again(codex):
    codex.write_text('model = "o3"\n\n[tui]\nnotifications = true\n')
    ok("connect", "codex")
    import tomllib

    assert tomllib.loads(codex.read_text())["tui"] == {"notifications": True}  # notify stayed top-level
    codex.write_text(codex.read_text() + "\n[projects.\"/src\"]\ntrust_level = \"trusted\"\n")  # Codex wrote
    ok("connect", "codex", "--remove")
    assert codex.read_text() == ('model = "o3"\n\n[tui]\nnotifications = true\n\n'
                                 '[projects."/src"]\ntrust_level = "trusted"\n')


@pytest.mark.parametrize("text, why", [('notify = "notify-send"\n', "not a list of strings"),
                                       ("model = \n", "is not TOML")])
def test_a_codex_config_conv_cannot_read_is_left_as_it_is(codex, text, why):
    codex.write_text(text)
    assert why in fails("connect", "codex", code=1)
    assert codex.read_text() == text


def test_codex_has_no_project_settings_to_connect(codex, tmp_path, monkeypatch):
    git(tmp_path, "init", "-q")
    monkeypatch.chdir(tmp_path)
    assert "user-wide config.toml only" in fails("connect", "codex", "--project", code=1)


def test_an_unknown_tool_is_named_with_the_nearest(claude):
    said = fails("connect", "windsurf", code=2)
    assert "conv connects no tool called 'windsurf'" in said and "claude-code, codex, gemini, qwen, copilot" in said
    assert "Cursor runs no command conv could hand each exchange to" in fails("connect", "cursor", code=2)
    assert "(did you mean claude-code?)" in fails("connect", "claude", code=2)
    assert "aider runs no command conv could hand each exchange to" in fails("connect", "aider", code=2)
    assert "pi takes in no session conv could write" in fails("handoff", "--to", "pi", code=2)


def test_a_users_own_hook_that_runs_conv_is_theirs(claude):
    theirs = {"hooks": {"Stop": [{"hooks": [{"type": "command",
                                             "command": "echo before; conv capture claude-code # my wrapper"}]},
                                 {"hooks": [{"type": "command",
                                             "command": "/opt/other/conv capture claude-code --debug"}]}]}}
    claude.write_text(json.dumps(theirs, indent=2) + "\n")
    ok("connect", "claude-code")
    assert hooks_of(claude)["Stop"][:2] == theirs["hooks"]["Stop"] and len(hooks_of(claude)["Stop"]) == 3
    claude.write_text(claude.read_text().replace("{", "{ ", 1))  # changed since: only conv's own entry goes
    ok("connect", "claude-code", "--remove")
    assert json.loads(claude.read_text()) == theirs


def test_what_is_connected_is_read_from_the_settings_not_remembered(claude, tmp_path):
    ok("connect", "claude-code")
    claude.write_text("{}\n")  # a dotfiles manager put its own copy back
    state = json.loads(ok("connect", "--json").stdout)["tools"][0]
    assert state["connected"] == [] and state["problems"] == [
        f"{claude}: conv's hook was taken out (conv connect claude-code puts it back)"]
    assert "conv's hook was taken out" in ok("connect").stderr.decode()


def test_connecting_for_another_store_says_whose_hook_it_was(claude, tmp_path):
    first = os.environ["CONV_HOME"]
    ok("connect", "claude-code")
    said = ok("connect", "claude-code", env={"CONV_HOME": str(tmp_path / "other")}).stdout.decode()
    assert f"conv's hook updated in {claude} (it captured into {first} before)" in said
    problems = json.loads(ok("connect", "--json").stdout)["tools"][0]["problems"]
    assert problems == [f"{claude}: its hook captures into {tmp_path / 'other'}"]


def test_a_settings_folder_conv_cannot_write_is_one_line_and_the_others_go_on(tmp_path, codex, monkeypatch):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where Claude Code's folder would be")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(blocked))
    done = run_conv("connect", "all")
    assert done.returncode == 1
    said = done.stderr.decode()
    assert f"conv: error: claude-code: {blocked}/settings.json left as it is: cannot read {blocked}/settings.json:" \
        in said or f"cannot write {blocked}/settings.json: Not a directory" in said, said
    assert "codex: connected" in done.stdout.decode() and ".tmp" not in said and "CONV_HOME" not in said


def test_line_endings_and_an_empty_notify_are_kept(claude, codex):
    text = '{\r\n  "model": "opus"\r\n}\r\n'
    claude.write_text(text, newline="")
    ok("connect", "claude-code")
    assert "\r\n" in claude.read_bytes().decode() and "\n" not in claude.read_bytes().decode().replace("\r\n", "")
    codex.write_bytes(b'model = "o3"\r\nnotify = []\r\n')
    ok("connect", "codex")
    assert b"\n" not in codex.read_bytes().replace(b"\r\n", b"")
    ok("connect", "all", "--remove")
    assert claude.read_bytes() == text.encode() and codex.read_bytes() == b'model = "o3"\r\nnotify = []\r\n'


def test_a_wrapper_that_sets_more_than_conv_home_is_the_users(claude, codex):
    mine = "env HTTPS_PROXY=http://proxy:8080 conv capture claude-code"
    claude.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": mine,
                                                                  "timeout": 60}]}]}}))
    ok("connect", "claude-code")
    assert hooks_of(claude)["Stop"][0]["hooks"][0] == {"type": "command", "command": mine, "timeout": 60}
    codex.write_text('notify = ["env", "HTTPS_PROXY=http://proxy:8080", "conv", "capture", "codex"]\n')
    ok("connect", "codex")
    import tomllib

    notify = tomllib.loads(codex.read_text())["notify"]
    assert notify[-6:] == ["--then", "env", "HTTPS_PROXY=http://proxy:8080", "conv", "capture", "codex"]


def test_a_hook_taken_out_of_one_event_or_run_by_a_conv_gone_is_said(claude):
    ok("connect", "claude-code")
    settings = json.loads(claude.read_text())
    del settings["hooks"]["SessionEnd"]
    claude.write_text(json.dumps(settings))
    problems = json.loads(ok("connect", "--json").stdout)["tools"][0]["problems"]
    assert problems == [f"{claude}: conv's entries are incomplete or run another conv (conv connect claude-code "
                        "puts them right)"]
    ok("connect", "claude-code")
    assert json.loads(ok("connect", "--json").stdout)["tools"][0]["problems"] == []


def test_a_settings_file_with_a_byte_order_mark_is_named_so(claude):
    claude.write_text("\ufeff{}")
    assert "byte-order mark" in fails("connect", "claude-code", code=1)
    assert "settings unreadable" in ok("connect").stdout.decode()


def test_a_linked_worktrees_project_settings_stay_out_of_its_git_status(tmp_path, monkeypatch):
    main, linked = tmp_path / "main", tmp_path / "linked"
    main.mkdir()
    git(main, "init", "-q")
    git(main, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "first")
    git(main, "worktree", "add", "-q", str(linked))
    monkeypatch.chdir(linked)
    ok("connect", "claude-code", "--project")
    assert (linked / ".claude" / "settings.local.json").exists() and git(linked, "status", "--porcelain") == ""


def test_claude_codes_mcp_entry_follows_the_store_that_connected_last(claude_code, tmp_path):
    user = tmp_path / "user"
    env = {"HOME": str(user), "PATH": f"{claude_code.parent}:{os.environ['PATH']}"}
    ok("connect", "claude-code", env=env)
    ok("connect", "claude-code", env={**env, "CONV_HOME": str(tmp_path / "other")})
    entry = json.loads((user / ".claude.json").read_text())["mcpServers"]["conv"]
    assert entry["env"] == {"CONV_HOME": str(tmp_path / "other")} and entry["args"][-1] == "mcp"


def test_with_nothing_connected_the_status_names_every_tool_conv_connects(tmp_path):
    said = ok("connect", env={"HOME": str(tmp_path / "empty")}).stderr.decode()
    from conv import sources

    every = " | ".join(s.name for s in sources.every("settings"))
    assert "claude-code | codex" in every and f"connect one with: conv connect {every} | all" in said, said


def test_settings_with_comments_are_left_as_they_are_with_the_entry_to_merge_in_by_hand(tmp_path, monkeypatch):
    """Gemini CLI and Qwen Code read // and /* */ comments in settings.json; conv refused such a file with
    nothing to paste, and would have lost the comments writing it back."""
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path))
    settings = tmp_path / ".gemini" / "settings.json"
    settings.parent.mkdir()
    text = '{\n  // my theme, keep it\n  "theme": "GitHub", /* and this */\n  "note": "// not a comment"\n}\n'
    settings.write_text(text)
    said = fails("connect", "gemini", code=1)
    assert "has // or /* */ comments" in said and "Merge in by hand {" in said, said
    assert settings.read_text() == text
    entry = json.loads(said[said.index("Merge in by hand ") + len("Merge in by hand "):said.rindex(", or fix it")])
    assert entry["hooks"]["AfterAgent"][0]["hooks"][0]["command"].endswith("capture gemini")
    merged = text.replace('"theme"', json.dumps(entry)[1:-1] + ',\n  "theme"')
    settings.write_text(merged)  # as the user pastes it
    assert "already connected" in ok("connect", "gemini").stdout.decode()
    assert settings.read_text() == merged
    state = json.loads(ok("connect", "--json").stdout)
    assert next(t for t in state["tools"] if t["tool"] == "gemini")["connected"] == [str(settings)]
    said = fails("connect", "gemini", "--remove", code=1)
    assert "Take out by hand the hooks that run" in said and "capture gemini" in said, said
    assert settings.read_text() == merged


def test_check_runs_each_hook_as_its_tool_would_and_says_what_would_be_lost(claude, tmp_path, monkeypatch):
    """Qwen Code before 0.2x read conv's hook timeout of 10 as milliseconds and killed it at once: every
    exchange lost for six sessions while conv connect said "connected"."""
    monkeypatch.setenv("QWEN_HOME", str(tmp_path / "qwen"))
    ok("connect", "claude-code")
    ok("connect", "qwen")
    said = ok("connect", "--check").stdout.decode()
    assert "claude-code:" in said and "qwen:" in said and said.count("ok: conv took it in") == 2, said
    assert json.loads(ok("list", "--json").stdout) == []  # a check's payload captures nothing
    qwen = tmp_path / "qwen" / "settings.json"
    doc = json.loads(qwen.read_text())
    for groups in doc["hooks"].values():
        groups[-1]["hooks"][0]["timeout"] = 10  # as an older conv wrote it
    qwen.write_text(json.dumps(doc))
    lost = fails("connect", "qwen", "--check", code=1)
    assert "killed after 10 ms" in lost and "every exchange would be lost" in lost, lost
    doc = json.loads(claude.read_text())
    for groups in doc["hooks"].values():
        hook = groups[-1]["hooks"][0]
        hook["command"] = hook["command"].replace(hook["command"].split()[2], str(tmp_path / "gone" / "conv"))
    claude.write_text(json.dumps(doc))  # the virtualenv conv was installed in, since removed
    gone = json.loads(run_conv("connect", "claude-code", "--check", "--json").stdout)["checked"]
    assert not any(c["ok"] for c in gone) and any("gone/conv is not there" in c["said"] for c in gone), gone
    assert "nothing to check" in ok("connect", "codex", "--check").stderr.decode()


def test_claude_codes_settings_with_comments_are_said_to_be_what_claude_code_does_not_load(claude):
    """Claude Code loads no settings file with a comment (its hooks and all): such a file was read as connected
    once conv's entry was merged in by hand."""
    text = '{\n  // mine\n  "model": "opus"\n}\n'
    claude.write_text(text)
    said = fails("connect", "claude-code", code=1)
    assert "Claude Code reads no comments there" in said and "Merge in by hand" not in said, said
    merged = text.replace('"model"', json.dumps({"hooks": hooks_of_a_fresh_connect(claude)})[1:-1] + ',\n  "model"')
    claude.write_text(merged)
    state = json.loads(ok("connect", "--json").stdout)["tools"][0]
    assert state["connected"] == [] and any("conv cannot read it" in p for p in state["problems"]), state
    assert claude.read_text() == merged


def hooks_of_a_fresh_connect(claude) -> dict:
    """conv's hooks as conv connect writes them into an empty settings file (put back as it was after)."""
    kept = claude.read_text()
    claude.unlink()
    ok("connect", "claude-code")
    hooks = hooks_of(claude)
    ok("connect", "claude-code", "--remove")
    claude.write_text(kept)
    return hooks


def test_check_reads_a_hook_as_the_tools_shell_would_and_never_breaks(claude, tmp_path, monkeypatch, conv_home):
    """From a user's pass over conv connect --check: it said ok where the capture would drop everything (conv's
    record of the connection gone), gave a traceback for a program that is no program, read ~ as a folder
    named ~, and waited on a child the hook left holding its output."""
    import shutil

    ok("connect", "claude-code")
    doc = json.loads(claude.read_text())
    line = doc["hooks"]["Stop"][-1]["hooks"][0]["command"]
    conv = line.split()[2]

    def check_with(program: str) -> dict:
        for groups in doc["hooks"].values():
            groups[-1]["hooks"][0]["command"] = line.replace(conv, program)
        claude.write_text(json.dumps(doc))
        (checked,) = [c for c in json.loads(run_conv("connect", "claude-code", "--check", "--json").stdout)["checked"]
                      if "conv's entries" not in c["said"]]
        return checked

    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "bin").mkdir()
    shutil.copy(conv, tmp_path / "bin" / "conv")
    assert check_with("~/bin/conv")["ok"]  # as the tool's shell reads it
    (tmp_path / "waits").mkdir()
    wrapper = tmp_path / "waits" / "conv"  # a wrapper of the user's, by conv's name
    wrapper.write_text(f"#!/bin/sh\nsleep 15 &\nexec {conv} \"$@\"\n")
    wrapper.chmod(0o755)
    left = check_with(str(wrapper))
    assert left["ok"] and left["took_ms"] < 10_000, left  # the child holding stdout is not waited for
    (tmp_path / "garbage").mkdir()
    garbage = tmp_path / "garbage" / "conv"
    garbage.write_bytes(b"\x7fELF\x00\x00garbage")
    garbage.chmod(0o755)
    said = check_with(str(garbage))
    assert not said["ok"] and "Traceback" not in said["said"], said
    check_with(conv)
    (conv_home / "state" / "connected.json").unlink()  # conv's own record of the connection lost
    said = json.loads(run_conv("connect", "claude-code", "--check", "--json").stdout)["checked"]
    assert not any(c["ok"] for c in said) and any("conv did not take it" in c["said"] for c in said), said


def test_clines_hook_file_is_made_executable(tmp_path, monkeypatch):
    monkeypatch.setenv("CLINE_DIR", str(tmp_path / "cline"))
    (tmp_path / "cline").mkdir()
    ok("connect", "cline")
    (hook,) = (tmp_path / "cline").rglob("TaskComplete.sh")
    assert hook.stat().st_mode & 0o777 == 0o700
