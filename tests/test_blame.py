"""``conv blame`` and ``conv origin`` (issue 46) on a real project worked by
the real Claude Code (Write, then Edit, through its own tools) and the real
Codex (apply_patch), captured as they ran; commits made by hand between and
after: the agents' work, a line changed by hand, a dependency bump, a
formatter's run. Every line an agent wrote and that was committed as written
names its conversation and turn; the others name none, and the bump and the
formatter's commit are no one's. A teammate's clone (another HOME, another
path) answers the same after conv import --from project."""

import json
import os
import subprocess

from anthropic_fake import AnthropicFake
from conftest import fails, git, ok
from responses_fake import ResponsesFake, message
from test_capture_agents import stored
from test_import_claude_code import ClaudeCode
from test_import_codex import Codex

FETCH = "import time\n\n\ndef fetch(url, get):\n    return get(url)\n"
RETRY = ("    for attempt in range(3):\n        try:\n            return get(url)\n        except IOError:\n"
         "            time.sleep(2 ** attempt)\n    raise IOError(url)\n")
HOOK = b'#!/bin/sh\necho "$2" >> .git/ran\n'  # the user's own prepare-commit-msg
PATCH = ("*** Begin Patch\n*** Add File: util.py\n+def clamp(value, low, high):\n"
         "+    return max(low, min(high, value))\n*** End Patch\n")


def commit(project, message: str, when: str, *paths: str) -> str:
    git(project, "add", *(paths or ["-A"]))
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    subprocess.run(["git", "-C", str(project), "commit", "-q", "-m", message], check=True, env=env)
    return git(project, "rev-parse", "HEAD").strip()


def trailers(project, sha: str) -> list[str]:
    """The commit's trailers as git itself reads them."""
    message = git(project, "log", "-1", "--format=%B", sha)
    done = subprocess.run(["git", "interpret-trailers", "--parse"], input=message, capture_output=True, text=True,
                          check=True)
    return done.stdout.splitlines()


def blamed(path) -> dict:
    return {line["line"]: line for line in json.loads(ok("blame", str(path), "--json").stdout)["lines"]}


def test_blame_and_origin_name_the_agents_lines_and_nothing_else(claude_code, codex, tmp_path, monkeypatch):
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.email", "dev@example.com")
    git(project, "config", "user.name", "Dev")
    (project / "requirements.txt").write_text("requests==2.31.0\n")
    commit(project, "start", "2020-01-01T00:00:00Z")  # before any session
    shared = tmp_path / "shared.git"  # where teammates meet
    git(tmp_path, "init", "-q", "--bare", str(shared))
    git(project, "remote", "add", "origin", str(shared))
    monkeypatch.setenv("HOME", str(home))
    ok("connect", "claude-code")
    with AnthropicFake() as server:
        agent = ClaudeCode(claude_code, project, home, server)
        fetch = str(project / "fetch.py")
        server.script = [
            [{"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {"file_path": fetch, "content": FETCH}}],
            [{"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {"file_path": fetch}}],
            [{"type": "tool_use", "id": "toolu_3", "name": "Edit", "input": {
                "file_path": fetch, "old_string": "    return get(url)\n", "new_string": RETRY}}],
            [{"type": "text", "text": "fetch.py retries three times now."}]]
        agent("write fetch.py with retries", "--permission-mode", "acceptEdits")
        claude = stored(2)
    assert (project / "fetch.py").read_text() == FETCH.replace("    return get(url)\n", RETRY)
    users_hook = project / ".git" / "hooks" / "prepare-commit-msg"  # the user's own, chained by conv origin --link
    users_hook.write_bytes(HOOK)
    users_hook.chmod(0o750)
    monkeypatch.chdir(project)
    assert b"yours runs first" in ok("origin", "--link").stdout
    agent_commit = commit(project, "add fetch with retries", "2030-01-01T00:00:00Z", "fetch.py")

    with ResponsesFake() as server:
        codex_agent = Codex(codex, project, tmp_path / "codex-home", server)
        config = codex_agent.home / "config.toml"
        config.write_text(config.read_text().replace('model = "gpt-test"', 'model = "gpt-5.5"'))
        server.script = [[{"type": "custom_tool_call", "id": "ctc_1", "status": "completed", "call_id": "call_1",
                           "name": "apply_patch", "input": PATCH}], [message("Added util.py.")]]
        done = subprocess.run([str(codex_agent.binary), "exec", "--skip-git-repo-check", "-s", "workspace-write",
                               "add a clamp helper"], cwd=project, env=codex_agent.env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr[-2000:]
    assert (project / "util.py").read_text() == "def clamp(value, low, high):\n    return max(low, min(high, value))\n"
    ok("import", "--from", "codex", env={"CODEX_HOME": str(codex_agent.home)})
    util_commit = commit(project, "add clamp", "2030-01-02T00:00:00Z", "util.py")

    (project / "fetch.py").write_text((project / "fetch.py").read_text().replace("range(3)", "range(5)"))
    hand = commit(project, "five tries", "2030-01-03T00:00:00Z", "fetch.py")  # a line changed by hand
    (project / "requirements.txt").write_text("requests==2.32.0\n")
    bump = commit(project, "bump requests", "2030-01-04T00:00:00Z")  # while the sessions are there: no one's
    (project / "util.py").write_text("def clamp(value, low, high):\n  return max(low, min(high, value))\n")
    formatter = commit(project, "format: two spaces", "2030-01-05T00:00:00Z")

    claude_id, codex_id = claude["id"], next(c["id"] for c in json.loads(ok("list", "--json").stdout)
                                             if c["source"] == "codex")
    assert trailers(project, agent_commit) == [f"Conv-Conversation: {claude_id}"]
    assert trailers(project, util_commit) == [f"Conv-Conversation: {codex_id}"]
    for nobody in (hand, bump, formatter):  # no session wrote what they hold: no trailer
        assert trailers(project, nobody) == [], nobody
    ok("origin", "--unlink")
    assert users_hook.read_bytes() == HOOK and (project / ".git" / "ran").read_text().split() == ["message"] * 5
    assert users_hook.stat().st_mode & 0o777 == 0o750
    assert not (users_hook.parent / "prepare-commit-msg.before-conv").exists()

    lines = blamed(project / "fetch.py")
    for number, line in lines.items():
        if "range(5)" in line["text"]:
            assert line["conversation"] is None and line["commit"] == hand
        elif line["text"].strip():
            assert line["conversation"]["id"] == claude_id, line
            assert line["commit"] == agent_commit and line["conversation"]["source"] == "claude-code"
    edit_turn = lines[7]["conversation"]["turn"]  # (return get(url), in the Edit's new text)
    changed = next(line for line in lines.values() if "range(5)" in line["text"])
    assert changed["how"] == f"changed since turn {edit_turn} of {lines[7]['conversation']['short']}"
    shown = json.loads(ok("show", claude_id, "--turn", str(edit_turn), "--json").stdout)
    assert any(e["kind"] == "patch" for t in shown["turns"] for e in t.get("edits", []))  # the Edit, as its result said
    util = blamed(project / "util.py")
    assert [line["conversation"]["id"] for line in util.values()] == [codex_id, codex_id]  # re-indented: still its
    assert json.loads(ok("blame", f"{project / 'requirements.txt'}", "--json").stdout)["lines"][0]["conversation"] \
        is None

    def origin(sha):
        (found,) = json.loads(ok("origin", sha, "--json").stdout)["commits"]
        return found

    wrote = origin(agent_commit)
    assert [(c["id"], c["lines"]) for c in wrote["conversations"]] == [(claude_id, 10)] and wrote["added"] == 10
    assert [c["id"] for c in origin(util_commit)["conversations"]] == [codex_id]
    for nobody in (hand, bump, formatter):
        assert origin(nobody)["conversations"] == [], nobody
    assert origin(bump)["unwritten"] == 1
    everything = json.loads(ok("origin", f"{agent_commit}~1..HEAD", "--json").stdout)["commits"]
    assert [c["commit"] for c in everything] == [agent_commit, util_commit, hand, bump, formatter]
    assert "no git work tree" in fails("blame", str(tmp_path / "elsewhere.py"), code=2)

    noted = json.loads(ok("origin", f"{agent_commit}~1..HEAD", "--note", "--json").stdout)["commits"]
    assert [c["commit"] for c in noted if c["conversations"]] == [agent_commit, util_commit]
    assert git(project, "notes", "--ref", "conv", "show", agent_commit) == f"Conv-Conversation: {claude_id}\n"
    assert git(project, "notes", "--ref", "conv", "list").count("\n") == 2  # the others: none

    # a teammate: another clone, another path, another store, after conv import --from project
    git(project, "push", "-q", "origin", "main")
    ok("push", "--project", "--yes")
    assert git(shared, "notes", "--ref", "conv", "show", util_commit) == f"Conv-Conversation: {codex_id}\n"
    mate = tmp_path / "mate"
    git(tmp_path, "clone", "-q", "-b", "main", str(shared), str(mate))
    monkeypatch.setenv("CONV_HOME", str(tmp_path / "mate-conv"))
    monkeypatch.chdir(mate)
    ok("import", "--from", "project")
    theirs = blamed(mate / "fetch.py")
    assert {n: (line["conversation"] or {}).get("id") for n, line in theirs.items()} == \
        {n: (line["conversation"] or {}).get("id") for n, line in lines.items()}
    assert [c["id"] for c in origin(util_commit)["conversations"]] == [codex_id]
    assert origin(agent_commit)["linked"] == [claude_id]  # its trailer, and the note brought in beside it
    assert git(mate, "notes", "--ref", "conv", "show", util_commit) == f"Conv-Conversation: {codex_id}\n"
    assert "lines are LINE, FIRST-LAST" in fails("blame", f"{project / 'fetch.py'}:0", code=2)
