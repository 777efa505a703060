"""Conversations tied to the project they were about: a new conversation
records the git work tree it was started in (read from its files, checked
against the real git CLI), ``--here`` lists and searches that project's
conversations, imports included, and ``conv show`` names the commit."""

import json

import pytest
from conftest import fails, git, ok

from conv.home.project import here


@pytest.fixture
def repo(tmp_path):
    top = tmp_path / "app"
    (top / "src" / "deep").mkdir(parents=True)
    git(top, "init", "-q", "-b", "dev")
    git(top, "remote", "add", "origin", "https://alice:s3cr3t-token@git.example.com/team/app.git")
    git(top, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "first")
    return top


def test_a_conversation_started_in_a_work_tree_records_it_and_no_credential(fake, repo, store_path):
    done = json.loads(ok("ask", "--json", "why is the build red?", cwd=repo / "src" / "deep").stdout)
    meta = json.loads(ok("show", "--json", done["conversation"]).stdout)["project"]
    assert meta == {"root": str(repo), "remote": "https://git.example.com/team/app.git", "branch": "dev",
                    "commit": git(repo, "rev-parse", "HEAD").strip()}
    assert "s3cr3t-token" not in git(store_path, "log", "-p", "--all")  # the URL's password never reaches the store
    ok("ask", "-c", "and now?", cwd="/")  # a follow-up elsewhere does not move it
    assert json.loads(ok("show", "--json", done["conversation"]).stdout)["project"]["root"] == str(repo)
    shown = ok("show", done["conversation"]).stdout.decode()
    assert f"in {repo} on dev at {git(repo, 'rev-parse', 'HEAD').strip()[:10]}" in shown


def test_packed_refs_a_detached_head_and_a_linked_worktree_are_read_as_git_reads_them(repo, tmp_path):
    git(repo, "pack-refs", "--all")
    head = git(repo, "rev-parse", "HEAD").strip()
    assert here(str(repo))["commit"] == head
    git(repo, "checkout", "-q", "--detach")
    assert here(str(repo)) == {"root": str(repo), "remote": "https://git.example.com/team/app.git", "commit": head}
    git(repo, "worktree", "add", "-q", "-b", "feature", str(tmp_path / "wt"))
    found = here(str(tmp_path / "wt"))
    assert (found["root"], found["branch"], found["commit"]) == (str(tmp_path / "wt"), "feature", head)
    assert found["remote"] == "https://git.example.com/team/app.git"
    assert here(str(tmp_path)) is None


def test_list_and_search_here_show_this_projects_conversations_imports_too(fake, repo, tmp_path):
    mine = json.loads(ok("ask", "--json", "rebase question in app", cwd=repo / "src").stdout)["conversation"]
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    ok("ask", "rebase question elsewhere", cwd=other)
    ok("ask", "rebase question nowhere", cwd=tmp_path)
    session = tmp_path / "claude" / "s.jsonl"  # a session run in a subfolder of the project
    session.parent.mkdir()
    session.write_text("".join(json.dumps(r) + "\n" for r in [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s1", "cwd": str(repo / "src"),
         "timestamp": "2026-11-01T10:00:00.000Z", "message": {"role": "user", "content": "rebase in the agent"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s1",
         "timestamp": "2026-11-01T10:00:01.000Z",
         "message": {"role": "assistant", "model": "m", "content": [{"type": "text", "text": "ok"}]}}]))
    ok("import", "--from", "claude-code", str(session))

    listed = json.loads(ok("list", "--here", "--json", cwd=repo / "src" / "deep").stdout)
    assert {c["title"] for c in listed} == {"rebase question in app", "rebase in the agent"}
    assert mine in {c["id"] for c in listed}
    found = json.loads(ok("search", "rebase", "--here", "--json", cwd=repo).stdout)
    assert {h["title"] for h in found} == {"rebase question in app", "rebase in the agent"}
    assert len(json.loads(ok("list", "--json").stdout)) == 4
    line = fails("list", "--here", code=2, cwd=tmp_path)
    assert "--here: the current folder is in no git work tree" in line and "Traceback" not in line


def test_a_work_tree_named_like_the_start_of_another_is_not_it(fake, tmp_path):
    for name in ("app", "app2"):
        (tmp_path / name).mkdir()
        git(tmp_path / name, "init", "-q")
        ok("ask", f"question in {name}", cwd=tmp_path / name)
    assert [c["title"] for c in json.loads(ok("list", "--here", "--json", cwd=tmp_path / "app").stdout)] == [
        "question in app"]
