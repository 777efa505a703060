"""What someone who did not build ``conv blame`` and ``conv origin`` did to
make them lie, each now a case: a human's commit of lines anyone writes, an
Edit's context lines, a part of a line replaced, text an agent undid, an
amend, a shallow clone, a range asked, a worktree, a trailer blame must read
too, git options passed as a revision, a shared hooks folder, and the rest
of what they said wrongly. The sessions are Claude Code's files as it writes
them (claude_sessions.py), imported."""

import json
import os
import subprocess

import pytest
from claude_sessions import write_session
from conftest import GIT_IDENTITY, fails, git, ok
from test_mcp import Server, called

HELPER = ("def load_config(path):\n    import json\n    with open(path) as handle:\n"
          "        settings = json.load(handle)\n    return settings\n")


def commit(project, message: str, when: str, env: dict | None = None) -> str:
    git(project, "add", "-A")
    dated = {**GIT_IDENTITY, **os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when, **(env or {})}
    subprocess.run(["git", "-C", str(project), "commit", "-q", "-m", message], check=True, env=dated)
    return git(project, "rev-parse", "HEAD").strip()


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project begun by hand, with HOME where its sessions are written."""
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    git(root, "init", "-q", "-b", "main")
    (root / "README").write_text("a project\n")
    commit(root, "start", "2030-01-01T00:00:00Z")
    monkeypatch.chdir(root)
    return root


def session(project, sid: str, when: str, edits: list[dict]) -> str:
    """The conversation of a Claude Code session that made ``edits`` at ``when``, imported (the files it wrote
    whole put in the project as it left them)."""
    write_session(project.parent / "user", project, sid, when, edits)
    for edit in edits:
        if "content" in edit:
            (project / edit["file"]).write_text(edit["content"])
    ok("import", "--from", "claude-code")
    return next(c["id"] for c in json.loads(ok("list", "--json").stdout)
                if json.loads(ok("show", c["id"], "--json").stdout)["imported_from"]["id"] == sid)


def origin(spec: str = "HEAD") -> dict:
    (found,) = json.loads(ok("origin", spec, "--json").stdout)["commits"]
    return found


def writers(found: dict) -> dict:
    return {c["id"]: c["lines"] for c in found["conversations"]}


def blamed(target: str) -> list:
    return json.loads(ok("blame", target, "--json").stdout)["lines"]


def test_lines_anyone_writes_are_an_agents_only_beside_its_own(project):
    agent = session(project, "a0000000-0000-4000-8000-000000000001", "2030-02-01T10:00",
                    [{"file": "m.py", "content": "import sys\n\n\ndef main():\n    parse_arguments(sys.argv)\n"
                                                 "    return None\n\n\nclass Config:\n    pass\n"}])
    commit(project, "main", "2030-02-01T11:00:00Z")
    assert writers(origin()) == {agent: 9}  # its own, what it wrote beside them (a `pass` 5 lines on: too far)
    (project / "m.py").write_text((project / "m.py").read_text() + "\n\ndef other(y):\n        import sys\n"
                                  "        if y is None:\n            return None\n        else:\n            pass\n")
    git(project, "add", "m.py")
    assert ok("origin", "--staged").stdout == b""  # the hook would add no trailer
    human = commit(project, "other, by hand", "2030-02-02T11:00:00Z")
    assert writers(origin(human)) == {}
    ok("origin", human, "--note")
    assert git(project, "notes", "--ref", "conv", "list").strip() == ""
    assert [line["conversation"] for line in blamed("m.py")[10:]] == [None] * 8


def test_an_edits_context_lines_stay_the_first_writers(project):
    first = session(project, "b0000000-0000-4000-8000-000000000001", "2030-02-01T10:00",
                    [{"file": "calc.py", "content": "def compute_total(items, rate):\n"
                                                    "    subtotal = sum(item.price for item in items)\n"
                                                    "    return round(subtotal * (1 + rate), 2)\n"}])
    old = "def compute_total(items, rate):\n    subtotal = sum(item.price for item in items)\n"
    second = session(project, "b0000000-0000-4000-8000-000000000002", "2030-02-01T12:00",
                     [{"file": "calc.py", "old": old,
                       "new": "def compute_total(items, rate):\n    \"\"\"The total, tax included, in cents.\"\"\"\n"
                              "    subtotal = sum(item.price for item in items)\n"}])
    (project / "calc.py").write_text("def compute_total(items, rate):\n    \"\"\"The total, tax included, in cents."
                                     "\"\"\"\n    subtotal = sum(item.price for item in items)\n"
                                     "    return round(subtotal * (1 + rate), 2)\n")
    commit(project, "total", "2030-02-01T13:00:00Z")
    assert writers(origin()) == {first: 3, second: 1}


def test_a_part_of_a_line_replaced_and_a_rename_count_as_the_tool_said_them(project):
    text = "def fetch(url):\n    return get(url, timeout=10)\n\n\ndef old_name():\n    return fetch('/x')\n"
    renamed = text.replace("timeout=10", "timeout=30").replace("old_name", "new_name")
    agent = session(project, "c0000000-0000-4000-8000-000000000001", "2030-02-01T10:00", [
        {"file": "r.py", "content": text},
        {"file": "r.py", "old": "timeout=10", "new": "timeout=30", "patch": [{"oldStart": 1, "oldLines": 2,
         "newStart": 1, "newLines": 2, "lines": [" def fetch(url):", "-    return get(url, timeout=10)",
                                                 "+    return get(url, timeout=30)"]}]},
        {"file": "r.py", "old": "old_name", "new": "new_name", "patch": [{"oldStart": 5, "oldLines": 1,
         "newStart": 5, "newLines": 1, "lines": ["-def old_name():", "+def new_name():"]}]}])
    (project / "r.py").write_text(renamed)
    commit(project, "fetch", "2030-02-01T11:00:00Z")
    assert writers(origin()) == {agent: 6}
    assert all(line["conversation"]["id"] == agent for line in blamed("r.py"))


def test_what_an_agent_undid_is_no_longer_its_writing(project):
    agent = session(project, "d0000000-0000-4000-8000-000000000001", "2030-02-01T10:00", [
        {"file": "requirements.txt", "content": "requests==2.32.3\nurllib3==2.2.2\n"},
        {"file": "requirements.txt", "old": "requests==2.32.3\n", "new": "requests==2.31.0\n"}])
    (project / "requirements.txt").write_text("requests==2.31.0\nurllib3==2.2.2\n")
    commit(project, "pins", "2030-02-01T11:00:00Z")
    assert writers(origin()) == {agent: 2}
    (project / "requirements.txt").write_text("requests==2.32.3\nurllib3==2.2.2\n")
    bump = commit(project, "bump requests", "2030-02-05T00:00:00Z")
    assert writers(origin(bump)) == {}


def test_an_amend_or_a_rebase_keeps_the_time_the_change_was_made(project):
    (project / "calc.py").write_text("def area_of_circle(radius):\n    return 3.14159 * radius * radius\n")
    human = commit(project, "area, by hand", "2030-02-01T08:00:00Z")
    session(project, "e0000000-0000-4000-8000-000000000001", "2030-02-01T10:00",
            [{"file": "calc.py", "content": "def area_of_circle(radius):\n    return 3.14159 * radius * radius\n"}])
    subprocess.run(["git", "-C", str(project), "commit", "-q", "--amend", "--no-edit"], check=True,
                   env={**GIT_IDENTITY, **os.environ, "GIT_COMMITTER_DATE": "2030-02-01T12:00:00Z"})
    amended = git(project, "rev-parse", "HEAD").strip()
    assert amended != human and writers(origin(amended)) == {}
    assert origin(amended)["why"] == "committed before any captured session of this project"


def test_a_shallow_clones_first_commit_is_said_cut_and_no_ones(project, tmp_path):
    agent = session(project, "f0000000-0000-4000-8000-000000000001", "2030-02-01T10:00",
                    [{"file": "tool.py", "content": "def shallow_and_deep(value):\n    return value * 1234567\n"}])
    commit(project, "tool", "2030-02-01T11:00:00Z")
    (project / "README").write_text("a project\nby hand\n")
    commit(project, "readme", "2030-02-02T11:00:00Z")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{project}", str(clone))
    os.chdir(clone)
    found = origin()
    assert writers(found) == {} and found["why"] == "a shallow clone: the history is cut at this commit"
    assert {line["how"] for line in blamed("tool.py")} == {"a shallow clone: the history is cut at this commit"}
    os.chdir(project)
    assert [line["conversation"]["id"] for line in blamed("tool.py")] == [agent, agent]


def test_a_line_asked_alone_is_read_as_in_the_whole_file(project):
    text = "import os\n\nTIMEOUT = 10\nRETRIES_ALLOWED = 3\n\n\ndef client_for(host):\n    return os.path.join(host)\n"
    session(project, "a1000000-0000-4000-8000-000000000001", "2030-02-01T10:00",
            [{"file": "client.py", "content": text}])
    (project / "client.py").write_text(text.replace("TIMEOUT = 10", "TIMEOUT = 30"))
    commit(project, "client", "2030-02-01T11:00:00Z")
    whole = {line["line"]: (line["how"], (line["conversation"] or {}).get("id")) for line in blamed("client.py")}
    for asked in ("client.py:1", "client.py:3", "client.py:3-4", "client.py:5", "client.py:8", "client.py:7-8"):
        for line in blamed(asked):
            assert (line["how"], (line["conversation"] or {}).get("id")) == whole[line["line"]], (asked, line)


def test_a_worktree_is_the_same_project(project, tmp_path):
    worktree = tmp_path / "wt"
    git(project, "worktree", "add", "-q", "-b", "side", str(worktree))
    (tmp_path / "user").mkdir(exist_ok=True)
    agent = session(worktree, "a2000000-0000-4000-8000-000000000001", "2030-02-01T10:00",
                    [{"file": "wt.py", "content": "def written_in_a_worktree():\n    return 'parallel agents'\n"}])
    sha = commit(worktree, "in the worktree", "2030-02-01T11:00:00Z")
    assert writers(origin(sha)) == {agent: 2}  # asked from the main checkout


def test_blame_reads_the_trailer_origin_reads(project):
    text = "def shared_helper(values):\n    return sorted(set(values), reverse=True)\n"
    first = session(project, "a3000000-0000-4000-8000-000000000001", "2030-02-01T10:00", [{"file": "h.py",
                                                                                           "content": text}])
    second = session(project, "a3000000-0000-4000-8000-000000000002", "2030-02-01T11:00", [{"file": "h.py",
                                                                                            "content": text}])
    (project / "h.py").write_text(text)
    commit(project, f"helper\n\nConv-Conversation: {first}", "2030-02-01T12:00:00Z")
    assert writers(origin()) == {first: 2}
    assert [(line["conversation"]["id"], line["others"]) for line in blamed("h.py")] == [(first, [second])] * 2


def test_git_options_given_as_a_commit_are_refused_before_git_reads_them(project, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    said = fails("origin", "--", f"--output={tmp_path}/x/../victim.txt", code=2)
    assert "is no commit or range conv reads" in said and victim.read_text() == "precious\n"
    server = Server()
    text, failed = called(server, 1, "origin", commit=f"--output={tmp_path}/x/../victim.txt", folder=str(project))
    assert failed and victim.read_text() == "precious\n"
    text, failed = called(server, 2, "origin", commit="HEAD..--output=/tmp/x", folder=str(project))
    assert failed and "no commit or range" in text
    server.close()
    git(project, "config", "core.fsmonitor", f"touch {tmp_path}/ran")  # the repository's own: never run by conv
    (project / "README").write_text("a project\nchanged\n")
    ok("origin")
    ok("blame", "README")
    assert not (tmp_path / "ran").exists()


def test_the_hook_goes_in_this_repositorys_own_folder_only_and_says_what_it_keeps(project, tmp_path):
    git(project, "config", "core.hooksPath", str(tmp_path / "everyones"))
    assert "a hooks folder beyond this repository's own" in fails("origin", "--link", code=1)
    assert not (tmp_path / "everyones").exists()
    git(project, "config", "--unset", "core.hooksPath")
    mine = project / ".git" / "hooks" / "prepare-commit-msg"
    mine.write_text("#!/bin/sh\necho mine\n")
    mine.chmod(0o644)
    said = ok("origin", "--link").stdout.decode()
    assert "not executable: git did not run it, nor does conv's" in said
    ok("origin", "--unlink")
    assert mine.read_text() == "#!/bin/sh\necho mine\n" and mine.stat().st_mode & 0o777 == 0o644


def test_what_blame_and_origin_say_of_odd_files_notes_and_ids(project):
    agent = session(project, "a4000000-0000-4000-8000-000000000001", "2030-02-01T10:00",
                    [{"file": "n.py", "content": "def noted_function_here():\n    return 'a value worth a note'\n"
                                                 "\n\ndef and_another_one():\n    return 'another line of its own'\n"}])
    (project / "blob.dat").write_bytes(b"\x00\x01\x02binary\x00" * 50)
    (project / "sub").mkdir()
    (project / "sub" / "x.py").write_text("x = 1\n")
    sha = commit(project, "noted\n\nConv-Conversation: zzzzzzzzzzzz", "2030-02-01T11:00:00Z")
    git(project, "notes", "--ref", "conv", "add", "-m", "my own review note", sha)
    ok("origin", "--note")
    note = git(project, "notes", "--ref", "conv", "show", sha)
    assert note.startswith("my own review note\n") and f"Conv-Conversation: {agent}" in note
    found = origin()
    assert found["linked_unknown"] == ["zzzzzzzzzzzz"] and "turn" not in found["conversations"][0]
    assert "no conversation of this store" in ok("origin").stdout.decode()
    assert "is a binary file" in fails("blame", "blob.dat", code=2)
    assert "is a folder" in fails("blame", "sub", code=2)
    assert "no such path" in fails("blame", "not-there.py", code=1)


def test_a_file_the_repositorys_config_names_is_never_read_by_blame(project, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-LINE\n")
    git(project, "config", "blame.ignoreRevsFile", str(secret))  # git's error would quote its first line
    said = ok("blame", "README")
    assert b"TOP-SECRET" not in said.stdout + said.stderr
    server = Server()
    text, failed = called(server, 1, "origin", file=str(project / "README"))
    assert not failed and "TOP-SECRET" not in text
    server.close()


def test_files_with_spaces_and_quotes_in_their_names_are_read_by_origin_too(project):
    files = {"plain.py": "plain_path_agent_line_number_one = 1\n",
             "two words.py": "spaced_path_agent_line_number_one = 1\n",
             'say "hi".py': "quoted_path_agent_line_number_one = 1\n"}
    agent = session(project, "c0000000-0000-4000-8000-00000000000f", "2030-02-01T10:00",
                    [{"file": name, "content": text} for name, text in files.items()])
    commit(project, "three files", "2030-02-01T11:00:00Z")
    assert writers(origin()) == {agent: 3}
    assert [line["conversation"]["id"] for line in blamed("two words.py")] == [agent]


def test_a_merges_resolution_ranges_and_odd_commits_are_read_as_asked(project):
    git(project, "checkout", "-q", "-b", "side")
    (project / "conf.py").write_text("RETRIES = 1\n")
    commit(project, "one retry", "2030-02-01T09:00:00Z")
    git(project, "checkout", "-q", "main")
    (project / "conf.py").write_text("RETRIES = 2\n")
    commit(project, "two retries", "2030-02-01T09:30:00Z")
    subprocess.run(["git", "-C", str(project), "merge", "-q", "side"], capture_output=True,
                   env={**GIT_IDENTITY, **os.environ})  # a conflict
    resolved = "RETRIES_AFTER_THE_AGENT_RESOLVED_THE_CONFLICT = 3\n"
    agent = session(project, "e0000000-0000-4000-8000-00000000000e", "2030-02-01T10:00",
                    [{"file": "conf.py", "content": resolved}])
    merge = commit(project, "merge side", "2030-02-01T11:00:00Z")
    assert writers(origin(merge)) == {agent: 1}  # what the resolution wrote, not what either side had
    assert [line["conversation"]["id"] for line in blamed("conf.py")] == [agent]
    assert [line["line"] for line in blamed("conf.py:1-")] == [1]  # FIRST-: to the end
    assert "has only 1 line" in fails("blame", "conf.py:5", code=1)
    assert "lines are LINE" in fails("blame", "conf.py:\u0663", code=2)  # an Arabic-Indic three is no number
    assert "is no commit" in fails("origin", "HEAD^{tree}", code=1)
    assert "holds no commit" in fails("origin", "main..main", code=1)


def test_a_note_written_again_and_a_hook_taken_out_twice_change_nothing(project):
    agent = session(project, "f0000000-0000-4000-8000-00000000000f", "2030-02-01T10:00",
                    [{"file": "retry.py", "content": "def retry_with_backoff(call, attempts=3):\n"
                                                      "    return call()\n"}])
    commit(project, "retry", "2030-02-01T11:00:00Z")
    ok("origin", "--note")
    notes = git(project, "rev-parse", "refs/notes/conv").strip()
    ok("origin", "--note")
    assert git(project, "rev-parse", "refs/notes/conv").strip() == notes  # no empty commit of notes
    assert writers(origin()) == {agent: 2}
    hook = project / ".git" / "hooks" / "prepare-commit-msg"
    hook.write_text("#!/bin/sh\necho mine\n")
    ok("origin", "--link")
    ok("origin", "--unlink")
    again = ok("origin", "--unlink")  # the user's own hook is back: nothing of conv's to take out
    assert hook.read_text() == "#!/bin/sh\necho mine\n" and b"before-conv" not in again.stdout + again.stderr
