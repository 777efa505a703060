"""``conv blame`` and ``conv origin`` where history makes attribution hard:
the same line written by two sessions, a rebase, a cherry-pick, a squash, a
file renamed, a function moved to another file by hand, and trailers and
notes that lie (a teammate's repository is untrusted). The sessions are
Claude Code's files as it writes them (claude_sessions.py), imported."""

import json
import os
import subprocess

from claude_sessions import write_session
from conftest import GIT_IDENTITY, git, ok
from test_mcp import Server, called

A = "def parse(text):\n    fields = text.split(',')\n    return [f.strip() for f in fields]\n"
B = "def parse(text):\n    fields = text.split(',')\n    return tuple(f.strip() for f in fields)\n"
MOVED = "def render(rows):\n    return '\\n'.join(' | '.join(row) for row in rows)\n"


def commit(project, message: str, when: str) -> str:
    git(project, "add", "-A")
    env = {**GIT_IDENTITY, **os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    subprocess.run(["git", "-C", str(project), "commit", "-q", "-m", message], check=True, env=env)
    return git(project, "rev-parse", "HEAD").strip()


def conversations(sha: str) -> list[str]:
    (found,) = json.loads(ok("origin", sha, "--json").stdout)["commits"]
    return [c["id"] for c in found["conversations"]]


def blamed(path) -> list:
    return json.loads(ok("blame", str(path), "--json").stdout)["lines"]


def test_history_rewritten_and_moved_keeps_its_writers_and_lies_make_none(conv_home, tmp_path, monkeypatch):
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2030-03-01T00:00:00Z")  # what git commits without a date of its own
    git(project, "init", "-q", "-b", "main")
    (project / "README").write_text("a project\n")
    commit(project, "start", "2030-01-01T00:00:00Z")
    write_session(home, project, "aaaaaaaa-0000-4000-8000-000000000001", "2030-02-01T10:00",
                  [{"file": "csv.py", "content": A}])
    write_session(home, project, "bbbbbbbb-0000-4000-8000-000000000002", "2030-02-02T10:00",
                  [{"file": "csv.py", "content": B}, {"file": "table.py", "content": MOVED}])
    ok("import", "--from", "claude-code")
    ids = {json.loads(ok("show", c["id"], "--json").stdout)["imported_from"]["id"][:4]: c["id"]
           for c in json.loads(ok("list", "--json").stdout)}
    first, second = ids["aaaa"], ids["bbbb"]
    monkeypatch.chdir(project)

    # the same two lines written by both: the latest before the commit, the other named
    (project / "csv.py").write_text(A)
    early = commit(project, "parse csv", "2030-02-01T12:00:00Z")  # before the second session: the first's alone
    assert conversations(early) == [first]
    (project / "csv.py").write_text(B)
    late = commit(project, "parse to tuples", "2030-02-03T00:00:00Z")
    assert conversations(late) == [second]
    kept = blamed(project / "csv.py")[1]  # committed before the second session wrote it too: the first's alone
    assert kept["conversation"]["id"] == first and kept["others"] == [] and kept["commit"] == early

    # a line both had written by then: the latest's, the other named; unless a trailer names the other
    git(project, "checkout", "-q", "-b", "linked", early)
    (project / "csv.py").write_text(A + "\n\ndef count(text):\n    fields = text.split(',')\n    return len(fields)\n")
    both = commit(project, "count fields", "2030-02-04T00:00:00Z")
    assert conversations(both) == [second]
    assert blamed(project / "csv.py")[6]["others"] == [first]
    git(project, "commit", "-q", "--amend", "-m", f"count fields\n\nConv-Conversation: {first}")
    found = json.loads(ok("origin", "--json").stdout)["commits"][0]
    assert found["linked"] == [first] and [c["id"] for c in found["conversations"]] == [first]
    git(project, "checkout", "-q", "main")

    # rebased, cherry-picked and squashed: each new commit still finds its conversation
    git(project, "checkout", "-q", "-b", "feature", "main")
    (project / "table.py").write_text(MOVED)
    feature = commit(project, "render tables", "2030-02-05T00:00:00Z")
    git(project, "checkout", "-q", "main")
    (project / "README").write_text("a project\nwith tables\n")
    commit(project, "readme", "2030-02-06T00:00:00Z")
    git(project, "checkout", "-q", "feature")
    git(project, "rebase", "-q", "main")
    rebased = git(project, "rev-parse", "HEAD").strip()
    assert rebased != feature and conversations(rebased) == [second]
    git(project, "checkout", "-q", "main")
    git(project, "cherry-pick", feature)
    assert conversations("HEAD") == [second]
    git(project, "reset", "-q", "--hard", "HEAD~1")
    git(project, "merge", "-q", "--squash", "feature")
    squashed = commit(project, "squash: tables", "2030-02-08T00:00:00Z")
    assert conversations(squashed) == [second]

    # renamed, then moved by hand to another file: blame follows; the move itself is no one's writing
    git(project, "mv", "table.py", "tables.py")
    renamed = commit(project, "rename", "2030-02-09T00:00:00Z")
    assert conversations(renamed) == [] and [line["conversation"]["id"] for line in blamed(project / "tables.py")] \
        == [second, second]
    (project / "render.py").write_text("import sys\n\n" + MOVED)
    (project / "tables.py").write_text("")
    moved = commit(project, "move render to render.py", "2030-02-10T00:00:00Z")
    assert conversations(moved) == []
    assert [line["conversation"] and line["conversation"]["id"] for line in blamed(project / "render.py")] \
        == [None, None, second, second]

    # lies: a trailer naming a real conversation on a commit it did not write, hostile trailers and notes
    (project / "requirements.txt").write_text("requests==2.32.0\n")
    bump = commit(project, f"bump\n\nConv-Conversation: {second}\nConv-Conversation: $(touch {tmp_path}/pwned)\n"
                           "Conv-Conversation: ../../../etc/passwd\nConv-Conversation: \x1b]0;owned\x07",
                  "2030-02-11T00:00:00Z")
    git(project, "notes", "--ref", "conv", "add", "-m", "Conv-Conversation: " + "z" * 100_000 + "\n"
        f"Conv-Conversation: {first}\n\x1b[31mred", bump)
    found = json.loads(ok("origin", bump, "--json").stdout)["commits"][0]
    assert found["conversations"] == [] and found["unwritten"] == 1
    assert found["linked"] == [second, first]  # only what an id may be, nothing run
    printed = ok("origin", bump).stdout
    assert b"\x1b" not in printed and not (tmp_path / "pwned").exists()
    assert conversations(f"{early}~1..{early}") == [first]

    # an agent asks the same through conv mcp's origin tool
    server = Server()
    runs, failed = called(server, 1, "origin", file=str(project / "render.py"), lines="2-4")
    assert not failed and [(r["from"], r["to"], (r["conversation"] or {}).get("id")) for r in runs["runs"]] == \
        [(2, 2, None), (3, 4, second)]
    commits, failed = called(server, 2, "origin", commit=f"{early}~1..{late}", folder=str(project))
    assert not failed and [[c["id"] for c in commit["conversations"]] for commit in commits["commits"]] == \
        [[first], [second]]
    for n, (wrong, said) in enumerate([({"file": "render.py"}, "no absolute path"),
                                       ({"commit": "HEAD", "file": str(project / "csv.py")}, "a file (and lines) or"),
                                       ({}, "a file (and lines) or a commit"),
                                       ({"file": str(project / "csv.py"), "lines": "9-2"}, "FIRST-LAST"),
                                       ({"commit": "nope", "folder": str(project)}, "no commit or range nope"),
                                       ({"commit": "HEAD", "folder": str(tmp_path)}, "in no git work tree"),
                                       ({"commit": 7}, "must be a string")], start=3):
        text, failed = called(server, n, "origin", **wrong)
        assert failed and said in text, (wrong, text)
    assert server.close()[0] == 0
