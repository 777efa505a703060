"""A project's conversations travelling with its code (issue 25, part 2):
``conv push --project`` puts the conversations of the work tree on
refs/conv/NAME in the project's repository and pushes that ref to a real
remote (a bare repository git serves, as a hosting service would); a
teammate with a store of their own, in their own clone, picks them up with
``conv import --from project``. Checked with the git CLI: no branch moves,
a plain clone does not fetch them, the ref holds that project's
conversations alone."""

import json

import pytest
from conftest import fails, git, ok


@pytest.fixture
def team(tmp_path):
    """A remote, Alice's clone and Bob's, each with a git identity of its own."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    clones = {}
    for name in ("alice", "bob"):
        top = clones[name] = tmp_path / name / "app"
        top.parent.mkdir()
        git(top.parent, "clone", "-q", str(remote), "app")
        git(top, "config", "user.email", f"{name}@example.com")
        git(top, "config", "user.name", name)
    git(clones["alice"], "commit", "-q", "--allow-empty", "-m", "first")
    git(clones["alice"], "push", "-q", "origin", "main")
    git(clones["bob"], "pull", "-q", "origin", "main")
    return remote, clones["alice"], clones["bob"]


def test_a_teammate_imports_the_project_conversations_pushed_beside_the_code(fake, team, tmp_path):
    remote, alice, bob = team
    alice_home, bob_home = {"CONV_HOME": str(tmp_path / "alice-conv")}, {"CONV_HOME": str(tmp_path / "bob-conv")}
    fake.set(reply="ECHO")
    ok("ask", "a question about something else", env=alice_home, cwd=tmp_path)  # not of the project
    ok("ask", "how do I build this?", env=alice_home, cwd=alice)

    pushed = json.loads(ok("push", "--project", "--json", env=alice_home, cwd=alice).stdout)
    ref = "refs/conv/alice@example.com"
    assert pushed == {"conversations": 1, "ref": ref, "project": str(alice), "remote": "origin"}
    assert git(remote, "for-each-ref", "--format=%(refname)").split() == [ref, "refs/heads/main"]
    files = git(remote, "ls-tree", "-r", "--name-only", ref).split()
    assert len(files) == 3 and all(f.startswith("conversations/") for f in files)  # that conversation alone
    assert "how do I build this?" in git(remote, "show", f"{ref}:{next(f for f in files if f.endswith('-user.md'))}")
    git(tmp_path, "clone", "-q", str(remote), "plain")
    assert git(tmp_path / "plain", "for-each-ref", "refs/conv").strip() == ""  # a plain clone leaves it out

    brought = json.loads(ok("import", "--from", "project", "--json", env=bob_home, cwd=bob).stdout)
    assert (brought["refs"], brought["added"], brought["files_added"]) == (["alice@example.com"], 1, 2)
    listed = json.loads(ok("list", "--here", "--json", env=bob_home, cwd=bob).stdout)
    assert [c["title"] for c in listed] == ["how do I build this?"]
    shown = json.loads(ok("show", listed[0]["short"], "--json", env=bob_home).stdout)
    assert [t["content"] for t in shown["turns"]] == ["how do I build this?"] * 2

    ok("ask", "-c", "and how do I test it?", env=alice_home, cwd=alice)
    first = git(remote, "rev-parse", ref).strip()
    ok("push", "--project", env=alice_home, cwd=alice)
    assert git(remote, "rev-parse", f"{ref}^").strip() == first  # the ref goes forward, it is not replaced
    again = json.loads(ok("import", "--from", "project", "--json", env=bob_home, cwd=bob).stdout)
    assert (again["added"], again["files_added"]) == (0, 2)
    assert len(json.loads(ok("show", listed[0]["short"], "--json", env=bob_home).stdout)["turns"]) == 4
    assert json.loads(ok("import", "--from", "project", "--json", env=bob_home, cwd=bob).stdout)["commit"] is None
    for store in (tmp_path / "alice-conv" / "store.git", tmp_path / "bob-conv" / "store.git", remote):
        git(store, "fsck", "--strict")
    assert git(alice, "status", "--porcelain") == "" and git(alice, "branch", "--show-current").strip() == "main"


def test_outside_a_work_tree_or_without_a_remote_it_says_so(fake, tmp_path):
    assert "runs inside a git work tree" in fails("push", "--project", code=2, cwd=tmp_path)
    alone = tmp_path / "alone"
    git(tmp_path, "init", "-q", "-b", "main", str(alone))
    assert "no conversation of" in fails("push", "--project", code=2, cwd=alone)
    ok("ask", "a question", cwd=alone)
    said = ok("push", "--project", cwd=alone).stderr.decode()
    assert "kept in the project's repository" in said
    assert git(alone, "for-each-ref", "--format=%(refname)", "refs/conv").strip().startswith("refs/conv/")
    git(alone, "remote", "add", "origin", str(tmp_path / "gone.git"))
    said = fails("push", "--project", code=4, cwd=alone)
    assert "cannot push refs/conv/" in said and "does not appear to be a git repository" in said
    done = ok("import", "--from", "project", "--json", cwd=alone)  # its own ref is there; origin is not
    assert json.loads(done.stdout)["refs"] and "cannot fetch refs/conv/* from origin" in done.stderr.decode()


def test_what_a_teammate_deleted_does_not_come_back(fake, team, tmp_path):
    remote, alice, bob = team
    alice_home, bob_home = {"CONV_HOME": str(tmp_path / "alice-conv")}, {"CONV_HOME": str(tmp_path / "bob-conv")}
    ok("ask", "how do I deploy?", env=alice_home, cwd=alice)
    ok("push", "--project", env=alice_home, cwd=alice)
    ok("import", "--from", "project", env=bob_home, cwd=bob)
    short = json.loads(ok("list", "--json", env=bob_home).stdout)[0]["short"]
    ok("delete", short, env=bob_home)
    ok("ask", "-c", "and roll back?", env=alice_home, cwd=alice)
    ok("push", "--project", env=alice_home, cwd=alice)
    again = json.loads(ok("import", "--from", "project", "--json", env=bob_home, cwd=bob).stdout)
    assert (again["added"], again["files_added"], again["commit"]) == (0, 0, None)
    assert json.loads(ok("list", "--json", env=bob_home).stdout) == []
