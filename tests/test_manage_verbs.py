"""The verbs that manage and look through conversations (title, tag, status,
summary, delete, restore, clean, search, list filters, export, reindex, git,
gc, fsck) through the real CLI, with the real git CLI judging the store."""

import json
import os
import stat
import subprocess

import pytest
from conftest import fails, git, ok, run_conv

from conv.format.ids import TURN_RE, conversation_path

OLD_ID = "k3f9x2aaaaaa"  # made in-process, dated 2026-01-15: older than 7d / 30d
AGENT_ID = "coder-m4n5p6q7r8s9"


# -- helpers -------------------------------------------------------------------
def out(*args, **kw) -> str:
    return ok(*args, **kw).stdout.decode()


def js(*args, **kw):
    return json.loads(out(*args, "--json", **kw))


def usage_fails(*args) -> str:
    """Errors found by the argument parser (click): exit 2, no traceback."""
    done = run_conv(*args)
    err = done.stderr.decode()
    assert done.returncode == 2, (args, done.returncode, err)
    assert "Traceback" not in err and err.strip()
    return err


def ask(*args, **kw) -> str:
    return json.loads(out("ask", "--json", *args, **kw))["conversation"]


def head(store) -> str:
    return git(store, "rev-parse", "HEAD").strip()


def count(store) -> int:
    return int(git(store, "rev-list", "--count", "HEAD"))


def subject(store) -> str:
    return git(store, "log", "-1", "--format=%s").strip()


def blobs(store, prefix: str, rev: str = "HEAD") -> dict[str, str]:
    """file name -> blob id of every file under ``prefix`` in ``rev``."""
    found = {}
    for line in git(store, "ls-tree", "-r", rev, "--", prefix).splitlines():
        info, path = line.split("\t", 1)
        found[path.rsplit("/", 1)[1]] = info.split()[2]
    return found


def trash_path(conv_id: str) -> str:
    return "trash/" + conversation_path(conv_id).split("/", 1)[1]


def stored(conv_id: str, title: str, text: str, day: str = "20260115", agent=None, tags=()):
    """A conversation written in-process with an old date (conv ask always
    writes 'now'): what --since, clean --older and --agent need."""
    from conv.format.model import Conversation, Turn
    from conv.store import Store

    created = f"{day[:4]}-{day[4:6]}-{day[6:]}T00:00:00.000Z"
    conv = Conversation(id=conv_id, created=created, title=title, agent=agent, tags=list(tags))
    turn = Turn(f"{day}-000000.000-aaaa-user", "user", text, created=created)
    Store().add_turns(conv_id, lambda parent: [turn], f"{conv_id}: ask", conv)


def ids_of(items) -> list[str]:
    return [item["id"] for item in items]


def clone_edit_push(tmp_path, store, conv_id, change):
    """Change a conversation.md by hand in a clone, commit and push it back."""
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(store), str(work))
    meta = work / conversation_path(conv_id) / "conversation.md"
    meta.write_text(change(meta.read_text()))
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "hand edit")
    git(work, "push", "-q", "origin", "HEAD:main")


# -- title, tag, status, summary -------------------------------------------------
def test_title_tag_status_summary_are_one_commit_each(fake, store_path):
    conv_id = ask("how do I squash commits")
    other = ask("an unrelated question")
    meta_path = f"{conversation_path(conv_id)}/conversation.md"

    def one_commit(*args, says: str) -> str:
        before, old = count(store_path), head(store_path)
        done = ok(*args)
        assert count(store_path) == before + 1
        assert subject(store_path) == f"{conv_id}: {says}"
        assert git(store_path, "diff", "--name-only", old, "HEAD").split() == [meta_path]
        return done.stdout.decode()

    one_commit("title", conv_id[:6], "squash", "with", "rebase", says="title 'squash with rebase'")
    by_id = {c["id"]: c for c in js("list")}
    assert by_id[conv_id]["title"] == "squash with rebase"
    assert by_id[other]["title"] == "an unrelated question"
    assert out("show", conv_id).splitlines()[0] == "# squash with rebase"
    assert "title: squash with rebase" in git(store_path, "show", f"HEAD:{meta_path}")

    assert one_commit("tag", conv_id, "+work", "+git", says="tags +work +git") == "work git\n"
    assert out("tag", conv_id) == "work git\n"
    assert one_commit("tag", conv_id, "+git", "+later", says="tags +git +later") == "work git later\n"
    assert out("tag", other) == "\n"
    assert out("tag", other, "+a", "+b", "+c") == "a b c\n"
    assert out("tag", other, "--", "-b", "+d", "-nothere") == "a c d\n"  # after --, -TAG removes
    assert out("tag", other, "--", "-a", "-c", "-d") == "\n"
    assert {c["id"]: c["tags"] for c in js("list")} == {conv_id: ["work", "git", "later"], other: []}

    one_commit("status", conv_id, "paused", says="status paused")
    assert {c["id"]: c["status"] for c in js("list")} == {conv_id: "paused", other: "active"}
    one_commit("status", conv_id, "done", says="status done")
    assert ids_of(js("list", "--status", "done")) == [conv_id]

    one_commit("summary", conv_id, "Chose rebase -i", "with", "autosquash.", says="summary")
    shown = out("show", conv_id)
    assert "summary" in shown and "Chose rebase -i with autosquash." in shown
    assert shown.index("Chose rebase -i") < shown.index("1. user")
    assert {c["id"]: c["summary"] for c in js("list")} == {conv_id: "Chose rebase -i with autosquash.", other: None}
    one_commit("summary", conv_id, "", says="summary")
    assert {c["id"]: c["summary"] for c in js("list")}[conv_id] is None
    assert "autosquash" not in out("show", conv_id)
    assert "error" not in git(store_path, "fsck", "--strict")


def test_tag_removes_with_a_minus_as_its_help_shows(fake, store_path):
    """`conv tag k3f9x2 +work +git -draft` is the command's own example."""
    conv_id = ask("tag me")
    assert out("tag", conv_id, "+work", "+draft") == "work draft\n"
    before = count(store_path)
    done = run_conv("tag", conv_id, "+git", "-draft")
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == "work git\n"
    assert count(store_path) == before + 1 and subject(store_path) == f"{conv_id}: tags +git -draft"


def test_a_hand_added_comment_survives_title(fake, store_path, tmp_path):
    conv_id = ask("what is a reflog")
    meta_path = f"{conversation_path(conv_id)}/conversation.md"

    def hand_edit(text: str) -> str:
        assert text.startswith("---\n") and "\ntitle: what is a reflog\n" in text
        text = text.replace("\ntitle: what is a reflog\n",
                            "\n# keep this comment: written by hand\ntitle: what is a reflog\nowner: me  # mine\n")
        return text + "Notes kept by hand.\n"

    clone_edit_push(tmp_path, store_path, conv_id, hand_edit)
    ok("title", conv_id, "reflog explained")
    ok("tag", conv_id, "+git")
    ok("status", conv_id, "done")
    text = git(store_path, "show", f"HEAD:{meta_path}")
    assert "# keep this comment: written by hand" in text
    assert "owner: me  # mine" in text
    assert "Notes kept by hand." in text
    assert "title: reflog explained" in text and "reflog" not in text.replace("reflog explained", "")
    assert subject(store_path) == f"{conv_id}: status done"
    listed = js("list")[0]
    assert (listed["title"], listed["tags"], listed["status"]) == ("reflog explained", ["git"], "done")


# -- delete, restore, clean, purge -------------------------------------------------
def test_delete_moves_to_the_trash_and_restore_brings_it_back_identical(fake, store_path):
    a = ask("alpha question")
    ok("ask", "-c", "alpha follow-up")
    b = ask("beta question")
    c = ask("gamma question")
    where = conversation_path(a)
    files = blobs(store_path, where)
    assert len(files) == 5  # conversation.md and 4 turns
    before = count(store_path)

    done = ok("delete", a[:8])
    assert f"deleted: {a}" in done.stderr.decode()
    assert count(store_path) == before + 1 and subject(store_path) == f"{a}: delete"
    assert ids_of(js("list")) == [c, b]
    deleted = js("list", "--deleted")
    assert ids_of(deleted) == [a] and deleted[0]["deleted"] is True and deleted[0]["turns"] == 4
    assert "alpha question" in out("list", "--deleted")
    assert blobs(store_path, where) == {}
    assert blobs(store_path, trash_path(a)) == files  # moved, not copied or rewritten
    assert "no conversation matches" in fails("show", a, code=1)
    assert js("search", "alpha") == []
    assert js("log", a)["commits"][0]["message"] == f"{a}: delete"  # history stays readable
    assert "no conversation matches" in fails("delete", a, code=1)
    assert "nothing in the trash" in fails("restore", b, code=1)

    done = ok("restore", a[:6])
    assert f"restored: {a}" in done.stderr.decode()
    assert subject(store_path) == f"{a}: restore"
    assert blobs(store_path, where) == files
    assert blobs(store_path, "trash") == {}
    assert git(store_path, "ls-tree", "--name-only", "HEAD").split() == ["README.md", "conversations"]
    assert ids_of(js("list")) == [c, b, a] and js("list", "--deleted") == []
    assert "alpha follow-up" in out("show", a)

    before = count(store_path)
    moved = js("delete", c, b)
    assert moved == {"conversations": sorted([b, c]), "commit": head(store_path)}
    assert count(store_path) == before + 1
    assert subject(store_path) == "delete: " + ", ".join(sorted([b, c]))
    assert ids_of(js("list")) == [a] and sorted(ids_of(js("list", "--deleted"))) == sorted([b, c])
    ok("restore", b, c)
    assert sorted(ids_of(js("list"))) == sorted([a, b, c])
    assert "the trash is empty" in ok("list", "--deleted").stderr.decode()
    fsck = subprocess.run(["git", "-C", str(store_path), "fsck", "--strict"], capture_output=True, text=True)
    assert fsck.returncode == 0 and "error" not in fsck.stdout + fsck.stderr


def test_clean_moves_old_conversations_to_the_trash(fake, store_path):
    stored(OLD_ID, "an old chat", "ancient words")
    new = ask("a fresh question")
    start = head(store_path)

    done = ok("clean", "--older", "30d", "--dry-run")
    assert f"would move to the trash: {OLD_ID}" in done.stderr.decode()
    assert js("clean", "--older", "30d", "--dry-run") == {"conversations": [OLD_ID], "commit": None}
    assert sorted(js("clean", "--older", "0s", "--dry-run")["conversations"]) == sorted([OLD_ID, new])
    assert head(store_path) == start
    assert sorted(ids_of(js("list"))) == sorted([OLD_ID, new])

    done = ok("clean", "--older", "30d")
    assert f"moved to the trash: {OLD_ID}" in done.stderr.decode()
    assert count(store_path) == int(git(store_path, "rev-list", "--count", start)) + 1
    assert subject(store_path) == "clean: 1 conversation older than 30d"
    assert ids_of(js("list")) == [new] and ids_of(js("list", "--deleted")) == [OLD_ID]
    assert blobs(store_path, trash_path(OLD_ID))

    moved = head(store_path)
    assert "nothing to do" in ok("clean", "--older", "30d").stderr.decode()
    assert head(store_path) == moved

    ok("clean", "--older", "0s")
    assert js("list") == [] and sorted(ids_of(js("list", "--deleted"))) == sorted([OLD_ID, new])
    assert blobs(store_path, "conversations") == {}
    ok("restore", OLD_ID)
    assert ids_of(js("list")) == [OLD_ID]


def test_purge_needs_confirmation(fake, store_path):
    gone = ask("to be purged")
    ok("delete", gone)
    start = head(store_path)
    assert "--yes" in fails("clean", "--purge", code=2)
    assert "--yes" in fails("clean", "--purge", gone, code=2)
    assert head(store_path) == start and ids_of(js("list", "--deleted")) == [gone]
    assert "to be purged" in git(store_path, "log", "-p", "--all")


def test_purge_erases_the_trash_from_all_history(fake, store_path, conv_home):
    fake.set(reply="ECHO")
    marker = "xylophonequark"
    keep = ask("keep this one about rebase")
    ok("ask", "-c", "and a follow-up on rebase")
    gone = ask(f"the secret word is {marker}")
    ok("ask", "--cid", gone, f"say {marker} again")
    ok("tag", gone, "+secret")
    ok("ask", "--cid", keep, "last word on rebase")  # commits after the purged ones get new ids
    other = ask("a third one, deleted and purged too")
    keep_files = blobs(store_path, conversation_path(keep))
    keep_log = [(c["time"], c["message"]) for c in js("log", keep)["commits"]]
    assert len(keep_log) == 6
    ok("delete", gone, other)
    assert marker in git(store_path, "log", "--all", "-p")

    done = ok("clean", "--purge", "--yes")
    said = done.stderr.decode().strip()
    assert said.startswith("conv: erased: ") and sorted(said.split()[2:]) == sorted([gone, other])

    assert marker not in git(store_path, "log", "--all", "-p")
    assert marker not in git(store_path, "log", "--all", "-p", "--reflog")
    objects = subprocess.run(["git", "-C", str(store_path), "cat-file", "--batch-all-objects", "--batch"],
                             capture_output=True, check=True).stdout
    assert b"keep this one about rebase" in objects  # the check below can see contents
    assert marker.encode() not in objects
    assert b"a third one" not in objects
    assert marker.encode() not in (conv_home / "cache" / "index.sqlite").read_bytes()
    fsck = subprocess.run(["git", "-C", str(store_path), "fsck", "--strict", "--unreachable"],
                          capture_output=True, text=True)
    assert fsck.returncode == 0 and (fsck.stdout + fsck.stderr).strip() == "", fsck.stdout + fsck.stderr

    assert ids_of(js("list")) == [keep] and js("list", "--deleted") == []
    assert blobs(store_path, conversation_path(keep)) == keep_files
    assert [(c["time"], c["message"]) for c in js("log", keep)["commits"]] == keep_log
    assert "last word on rebase" in out("show", keep)
    assert ids_of(js("search", "rebase")) == [keep]
    assert js("search", marker) == []
    fails("show", gone, code=1)
    fails("log", gone, code=1)
    assert "nothing to do" in ok("clean", "--purge", "--yes").stderr.decode()
    ok("ask", "--cid", keep, "still works after the purge")
    assert "error" not in git(store_path, "fsck", "--strict")


def test_purge_of_named_refs_leaves_the_rest_of_the_trash(fake, store_path):
    a, b = ask("first in the trash"), ask("second in the trash")
    ok("delete", a, b)
    assert "nothing in the trash" in fails("clean", "--purge", "--yes", "qqqqqq", code=1)
    assert js("clean", "--purge", "--yes", a)["conversations"] == [a]
    assert ids_of(js("list", "--deleted")) == [b]
    ok("restore", b)
    assert ids_of(js("list")) == [b]


def test_purge_leaves_no_title_in_commit_messages(fake, store_path):
    """The title is conversation text; `conv title` puts it in a commit message."""
    gone = ask("innocuous question")
    ok("title", gone, "plans for projectnightjar")
    ok("tag", gone, "+nightjarsecret")
    ok("delete", gone)
    ok("clean", "--purge", "--yes")
    messages = git(store_path, "log", "--all", "--format=%B")
    assert "projectnightjar" not in messages
    assert "nightjarsecret" not in messages


# -- search and list filters ------------------------------------------------------------
@pytest.fixture
def varied(fake):
    """Five conversations: two recent about rebase (one tagged git, one done),
    one about pasta, an old one tagged git, an old agent's one."""
    fake.set(reply="ECHO")
    stored(OLD_ID, "old story", "an ancient rebase story", tags=["git"])
    stored(AGENT_ID, "agent work", "coder rebase helper", day="20260220", agent="coder")
    a = ask("rebase interactive with autosquash")
    ok("tag", a, "+git")
    b = ask("rebase onto the main branch")
    ok("status", b, "done")
    c = ask("cooking pasta tonight")
    return {"a": a, "b": b, "c": c}


def test_search_snippets_limits_and_filters(varied):
    a, b = varied["a"], varied["b"]
    hits = js("search", "rebase")
    assert sorted(ids_of(hits)) == sorted([a, b, OLD_ID, AGENT_ID])
    for hit in hits:
        assert set(hit) == {"id", "short", "title", "turn", "turn_number", "role", "snippet", "date", "source",
                            "project", "model"}
        assert hit["id"].startswith(hit["short"]) and len(hit["short"]) >= 6
        assert TURN_RE.match(hit["turn"]) and hit["role"] in ("user", "assistant")
        assert "rebase" in hit["snippet"] and "\ue000" not in hit["snippet"]
    assert {h["id"]: h["title"] for h in hits}[OLD_ID] == "old story"

    plain = out("search", "autosquash")
    lines = plain.splitlines()
    assert len(lines) == 3 and lines[0].startswith(a[:6]) and "rebase interactive" in lines[0]
    assert lines[1].split(" · ")[0].strip() == "conv" and lines[1].endswith("turn 1 (user)")  # where it is
    assert "autosquash" in lines[2] and "\x1b" not in plain and "\ue000" not in plain

    assert len(js("search", "rebase", "-n", "2")) == 2
    assert len(out("search", "rebase", "-n", "1").splitlines()) == 3
    assert sorted(ids_of(js("search", "rebase", "--tag", "git"))) == sorted([a, OLD_ID])
    assert sorted(ids_of(js("search", "rebase", "--since", "1d"))) == sorted([a, b])
    assert ids_of(js("search", "rebase", "--status", "done")) == [b]
    assert ids_of(js("search", "rebase", "--agent", "coder")) == [AGENT_ID]
    assert js("search", "rebase", "--agent", "nobody") == []
    assert ids_of(js("search", "rebase", "autosquash"))[0] == a  # every word first, then most of them
    assert ids_of(js("search", "REBASE", "Autosquash"))[0] == a  # case folded
    assert ids_of(js("search", "rebase onto"))[0] == b

    assert len(js("search", "rebase", "pasta")) == 5  # no turn holds both: each holds one of the two
    done = ok("search", "mushroom", "risotto")
    assert done.stdout == b"" and "nothing matches 'mushroom risotto'" in done.stderr.decode()

    ok("delete", a)
    assert js("search", "autosquash") == []
    assert a not in ids_of(js("search", "rebase"))
    ok("restore", a)
    assert ids_of(js("search", "autosquash")) == [a]


NO_WORDS = ('"', "*", "-")  # nothing to search for: a usage error, as an empty query is
FTS_QUERIES = {  # query -> how many it finds: the four rebase conversations, and the pasta one (5) as a word too;
    # FTS5's operators are words (NOT and OR exclude nothing), its quotes and marks are no syntax error
    '"rebase"': 4, 'reba"se': 0, "rebase*": 4, "re-base": 0, "pasta -rebase": 5, "col:on": 0, "rebase:": 4,
    "autosquash NEAR rebase": 4, "NEAR(rebase autosquash)": 4, "rebase OR pasta": 5, "rebase NOT pasta": 5,
    "AND": 0, "^rebase": 4, "(rebase": 4, "{rebase}": 4, "rebase'": 4, "%_\\": 0,
}


def test_search_takes_fts_syntax_literally(varied):
    for query, finds in FTS_QUERIES.items():
        hits = js("search", query)
        assert len(hits) == finds and (varied["c"] in ids_of(hits)) == (finds == 5), (query, hits)
    for query in NO_WORDS:
        assert "nothing to search for" in fails("search", query, code=2)
    for query in ("rebase*", "AND"):
        done = ok("search", query)
        assert done.stdout.decode().count("\n") == 3 * FTS_QUERIES[query], query  # a hit: 3 lines
        assert ("nothing matches" in done.stderr.decode()) != bool(FTS_QUERIES[query]), query
    after_dashes = json.loads(out("search", "--json", "--", "-rebase"))  # after --, a leading dash is a word
    assert len(after_dashes) == 4


def test_list_filters(varied, store_path):
    a, b, c = varied["a"], varied["b"], varied["c"]
    everything = js("list")
    assert ids_of(everything) == [c, b, a, AGENT_ID, OLD_ID]  # most recently updated first
    assert set(everything[0]) == {"id", "short", "title", "created", "updated", "model", "provider", "agent", "tags",
                                  "status", "turns", "current", "broken", "forked_from", "summary", "deleted", "tokens",
                                  "cost", "wrong", "source"}
    first = everything[0]
    assert (first["title"], first["turns"], first["model"], first["status"], first["deleted"]) == \
        ("cooking pasta tonight", 2, "gpt-4o-mini", "active", False)
    assert first["current"] is True and not any(item["current"] for item in everything[1:])
    assert {i["id"]: i["agent"] for i in everything}[AGENT_ID] == "coder"
    assert {i["id"]: i["updated"] for i in everything}[OLD_ID] == "2026-01-15T00:00:00.000Z"

    assert ids_of(js("list", "-n", "2")) == [c, b]
    assert len(out("list", "-n", "2").splitlines()) == 3  # a header and two rows
    assert ids_of(js("list", "--tag", "git")) == [a, OLD_ID]
    assert js("list", "--tag", "nope") == []
    assert ids_of(js("list", "--status", "done")) == [b]
    assert ids_of(js("list", "--status", "active")) == [c, a, AGENT_ID, OLD_ID]
    assert ids_of(js("list", "--agent", "coder")) == [AGENT_ID]
    assert ids_of(js("list", "--since", "7d")) == [c, b, a]
    assert ids_of(js("list", "--since", "2026-01-01")) == [c, b, a, AGENT_ID, OLD_ID]
    assert ids_of(js("list", "--since", "2026-02-01")) == [c, b, a, AGENT_ID]
    assert ids_of(js("list", "--since", "2026-01-01T00:00:00Z")) == ids_of(everything)
    assert js("list", "--since", "2099-01-01") == []
    assert ids_of(js("list", "--tag", "git", "--since", "7d", "-n", "5")) == [a]
    assert "--since 'yesterday'" in fails("list", "--since", "yesterday", code=2)
    fails("list", "--since", "2026-13-45", code=2)
    assert "unknown status" in fails("list", "--status", "finished", code=2)

    fork = js("fork", a, "--title", "rebase, forked")["id"]
    tree = js("list", "--tree")
    assert ids_of(tree) == [c, b, a, fork, AGENT_ID, OLD_ID]  # the fork right under its parent
    assert {i["id"]: i["forked_from"] for i in tree}[fork] == a
    rows = out("list", "--tree").splitlines()
    assert any("└ rebase, forked" in row for row in rows)
    assert rows.index(next(r for r in rows if "└ rebase, forked" in r)) == \
        rows.index(next(r for r in rows if r.strip().lstrip("*").startswith(a[:6]))) + 1
    assert ids_of(js("list"))[0] == fork  # without --tree: just the newest first

    ok("delete", c, OLD_ID)
    assert ids_of(js("list", "--deleted")) == [c, OLD_ID]
    assert ids_of(js("list", "--deleted", "--tag", "git")) == [OLD_ID]
    assert all(item["deleted"] for item in js("list", "--deleted"))
    assert c not in ids_of(js("list"))
    plain = out("list", "--deleted")
    assert "cooking pasta tonight" in plain and "old story" in plain


def test_list_with_no_conversations(fake):
    done = ok("list")
    assert done.stdout == b"" and "no conversations yet" in done.stderr.decode()
    assert js("list") == [] and js("list", "--deleted") == []


# -- the index is a cache --------------------------------------------------------------
def test_index_answers_exactly_the_same_after_loss_garbage_or_reindex(varied, conv_home, store_path):
    a, b = varied["a"], varied["b"]
    ok("ask", "--cid", b, "more about rebase onto")
    ok("title", a, "interactive rebase")
    ok("summary", a, "All about rebase.")
    ok("delete", varied["c"])

    def answers():
        return [out(*args) for args in (
            ("list", "--json"), ("list", "--deleted", "--json"), ("search", "rebase", "--json"),
            ("search", "pasta", "--json"), ("log", a, "--json"), ("log", b, "--json"), ("log", varied["c"], "--json"),
        )]

    before = answers()
    assert json.loads(before[4])["commits"][0]["message"] == f"{a}: summary"
    assert len(json.loads(before[2])) == 4
    assert json.loads(before[3]) == []  # the pasta conversation is in the trash
    index = conv_home / "cache" / "index.sqlite"
    assert index.exists()

    index.unlink()
    assert answers() == before
    index.write_bytes(b"definitely not SQLite " * 500)
    assert answers() == before
    done = ok("reindex")
    assert "indexed 5 conversations" in done.stderr.decode()
    assert answers() == before
    index.write_bytes(b"")
    assert answers() == before


# -- export ------------------------------------------------------------------------------
def test_export_formats(fake):
    fake.set(reply="ECHO")
    conv_id = ask("-s", "Answer in one line.", "first question")
    ok("ask", "-c", "second question")
    plain = ask("no system prompt here")

    messages = json.loads(out("export", conv_id, "--format", "openai"))
    assert messages == [
        {"role": "system", "content": "Answer in one line."},
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "first question"},
        {"role": "user", "content": "second question"},
        {"role": "assistant", "content": "second question"},
    ]
    assert json.loads(out("export", plain, "-f", "openai")) == [
        {"role": "user", "content": "no system prompt here"},
        {"role": "assistant", "content": "no system prompt here"},
    ]

    data = json.loads(out("export", conv_id, "--format", "json"))
    assert data["id"] == conv_id and data["title"] == "first question"
    # (where the system turn sorts: see test_a_system_prompt_comes_before_its_question)
    assert [t["role"] for t in data["turns"] if t["role"] != "system"] == ["user", "assistant", "user", "assistant"]
    assert [t["content"] for t in data["turns"] if t["role"] == "system"] == ["Answer in one line."]
    assert [t["content"] for t in data["turns"] if t["role"] != "system"][:2] == ["first question", "first question"]
    assert data["turn_count"] == 5 and all(TURN_RE.match(t["name"]) for t in data["turns"])

    md = out("export", conv_id, "--format", "md")
    assert md == out("export", conv_id)  # md is the default
    assert md.startswith("# first question\n") and conv_id in md
    headings = [line for line in md.splitlines() if line.startswith("## ")]
    assert sorted(h.split(" ")[2] for h in headings) == ["assistant", "assistant", "system", "user", "user"]
    assert [h.split(" ")[1] for h in headings] == ["1.", "2.", "3.", "4.", "5."]
    assert "Answer in one line." in md and md.count("second question") == 2

    assert json.loads(out("export", "-f", "json"))["id"] == plain  # the current one
    assert "unknown format 'xml'" in fails("export", conv_id, "--format", "xml", code=2)
    assert "no conversation matches" in fails("export", "qqqqqq", code=1)


def test_a_system_prompt_comes_before_its_question(fake):
    """conv ask -s writes the system turn and the question in one commit, most
    often in the same millisecond: the transcript must still start with the
    system prompt (turn names sort by time, then by their random part)."""
    for n in range(8):
        conv_id = ask("-s", f"Be brief {n}.", f"question {n}")
        turns = json.loads(out("export", conv_id, "-f", "json"))["turns"]
        assert [t["role"] for t in turns] == ["system", "user", "assistant"], (n, [t["name"] for t in turns])
        assert turns[1]["parent"] == turns[0]["name"]
    assert out("show", conv_id).split("1. ", 1)[1].startswith("system")


# -- git, gc, fsck -----------------------------------------------------------------------
def test_conv_git_passes_through_output_and_exit_code(fake, store_path):
    conv_id = ask("hello there")
    done = ok("git", "log", "--oneline")
    lines = done.stdout.decode().splitlines()
    assert len(lines) == count(store_path) == 3
    assert lines[0].endswith(f"{conv_id}: answer (gpt-4o-mini, 3 tokens)")
    assert lines[-1].endswith("conv: create store")
    assert ok("git", "rev-parse", "HEAD").stdout.decode().strip() == head(store_path)

    for args in (["rev-parse", "--verify", "--quiet", "refs/heads/nope"], ["cat-file", "-t", "0" * 40],
                 ["frobnicate"], ["log", "--no-such-flag"]):
        real = subprocess.run(["git", "--git-dir", str(store_path), *args], capture_output=True)
        assert real.returncode != 0
        done = run_conv("git", *args)
        assert done.returncode == real.returncode, (args, done.stderr.decode())
        assert "Traceback" not in done.stderr.decode()


def test_gc_packs_and_fsck_finds_a_corrupt_object(fake, store_path):
    first = [ask(f"question {n}") for n in range(3)]
    done = ok("gc")
    assert "packed with git" in done.stderr.decode()
    stats = dict(line.split(": ") for line in git(store_path, "count-objects", "-v").splitlines())
    assert int(stats["count"]) == 0 and int(stats["in-pack"]) >= 3 * 5 + 3 and int(stats["packs"]) >= 1
    assert ids_of(js("list")) == first[::-1]
    assert "question 0" in out("show", first[0])

    done = ok("fsck")
    assert done.stdout == b"" and "the store is sound" in done.stderr.decode()

    conv_id = ask("after gc")  # new loose objects
    assert int(dict(line.split(": ") for line in git(store_path, "count-objects", "-v").splitlines())["count"]) > 0
    user_turn = next(sha for name, sha in blobs(store_path, conversation_path(conv_id)).items()
                     if name.endswith("-user.md"))
    loose = store_path / "objects" / user_turn[:2] / user_turn[2:]
    assert loose.exists()
    os.chmod(loose, stat.S_IRUSR | stat.S_IWUSR)
    loose.write_bytes(b"this is not a zlib stream at all")

    done = run_conv("fsck")
    report = done.stdout.decode() + done.stderr.decode()
    assert done.returncode != 0 and "Traceback" not in report
    assert done.stdout.strip() and user_turn in report
    assert "the store is sound" not in report


# -- every command's errors ---------------------------------------------------------------------
ERRORS = [  # (args, exit code, what the one line says)
    (["title", "qqqqqq", "x"], 1, "no conversation matches"),
    (["title", OLD_ID, "   "], 2, "a title needs some text"),
    (["tag", "../x", "+y"], 1, "invalid conversation reference"),
    (["tag", "qqqqqq", "+x"], 1, "no conversation matches"),
    (["tag", "qqqqqq"], 1, "no conversation matches"),
    (["tag", OLD_ID, "+a,b"], 2, "is not a tag"),
    (["tag", OLD_ID, "+a b"], 2, "is not a tag"),
    (["status", OLD_ID, "finished"], 2, "unknown status 'finished'"),
    (["status", "qqqqqq", "done"], 1, "no conversation matches"),
    (["summary", "qqqqqq", "text"], 1, "no conversation matches"),
    (["delete", "qqqqqq"], 1, "no conversation matches"),
    (["delete", OLD_ID, "qqqqqq"], 1, "no conversation matches"),
    (["delete", "a b"], 1, "invalid conversation reference"),
    (["restore", OLD_ID], 1, "matches nothing in the trash"),
    (["restore", "qqqqqq"], 1, "matches nothing in the trash"),
    (["clean", "--older", "soon"], 2, "--older 'soon'"),
    (["clean", OLD_ID], 2, "REFs go with --purge only"),
    (["clean", "--purge", "--yes", OLD_ID], 1, "matches nothing in the trash"),
    (["search", "x", "--status", "finished"], 2, "unknown status"),
    (["search", "x", "--since", "soon"], 2, "--since 'soon'"),
    (["list", "--since", "soon"], 2, "--since 'soon'"),
    (["clean", "--older", "99999999d"], 2, "--older '99999999d'"),  # further back than any date
    (["list", "--since", "999999w"], 2, "--since '999999w'"),
    (["list", "--status", "paused!"], 2, "unknown status"),
    (["export", OLD_ID, "--format", "pdf"], 2, "unknown format 'pdf'"),
    (["export", "qqqqqq"], 1, "no conversation matches"),
    (["log", "qqqqqq"], 1, "no conversation matches"),
]

USAGE_ERRORS = [  # found by the argument parser
    ["status", OLD_ID], ["title", OLD_ID], ["summary"], ["delete"], ["restore"], ["search"],
    ["list", "-n", "0"], ["search", "x", "-n", "0"], ["list", "--bogus"], ["export", "--format"],
]


def test_errors_are_one_line_and_change_nothing(store_path):
    stored(OLD_ID, "old story", "an ancient rebase story")
    start = head(store_path)
    wrong = []
    for args, code, says in ERRORS:
        done = run_conv(*args)
        err = done.stderr.decode()
        lines = err.strip().splitlines()
        if (done.returncode != code or "Traceback" in err or len(lines) != 1
                or not lines[0].startswith("conv: error: ") or says not in lines[0]):
            wrong.append((args, done.returncode, err))
        assert head(store_path) == start, args  # nothing was written
    assert wrong == []
    for args in USAGE_ERRORS:
        usage_fails(*args)
    assert head(store_path) == start
    assert ids_of(js("list")) == [OLD_ID]


def test_list_says_what_it_leaves_out_and_where_the_conversations_went(fake):
    """Issue 23: conv list stopped at 50 of 3,300 without saying so, and said
    "no conversations yet" when all were in the trash."""
    ids = [json.loads(ok("ask", "--new", "--json", f"q{n}").stdout)["conversation"] for n in range(4)]
    done = ok("list", "-n", "3")
    assert "the 3 most recently updated of 4; conv list -n 4 shows them all" in done.stderr.decode()
    assert ok("list", "-n", "4").stderr == b""
    for conv_id in ids:
        ok("delete", conv_id)
    said = ok("list").stderr.decode()
    assert "no conversations but 4 in the trash: conv list --deleted, then conv restore REF" in said
