"""The index is a cache: deleted, corrupted or stale, it answers as git says."""

import json
import shutil
import sqlite3

import pytest
from conftest import fails, git, ok, run_conv

from conv.index.db import SCHEMA


def listing():
    done = run_conv("list", "--json")
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def test_rebuilt_index_answers_as_the_incremental_one(fake, conv_home):
    for n in range(5):
        run_conv("ask", f"topic {n}")
        run_conv("ask", "-c", f"more {n}")
    before = listing()
    index = conv_home / "cache" / "index.sqlite"
    index.unlink()
    assert listing() == before
    index.write_bytes(b"this is not a database" * 100)
    assert listing() == before
    data = bytearray(index.read_bytes())
    assert len(data) > 4096
    data[4096:] = b"\xff" * (len(data) - 4096)  # a valid header, every table page garbage
    index.write_bytes(bytes(data))
    assert listing() == before


def test_the_index_keeps_no_turn_text_and_still_finds_and_shows_it(fake, conv_home):
    """A turn's text lives in the store alone: the full-text index holds its
    words, and snippets read the text from the store for the results shown
    (issue 15: the parsed-file cache held every text, 56 of 79 MB at 10,000
    conversations)."""
    sentence = "the quokka inspected seventeen lighthouses before breakfast"
    fake.set(reply=sentence)  # an answer: no title or summary repeats it
    assert run_conv("ask", "tell me something").returncode == 0
    fake.set(reply="Something else.")
    run_conv("ask", "-c", "another turn")
    for build in ("incremental", "rebuilt"):
        if build == "rebuilt":
            assert run_conv("reindex").returncode == 0
        index = (conv_home / "cache" / "index.sqlite").read_bytes()
        assert index.count(sentence.encode()) == 0, build
        found = json.loads(run_conv("search", "lighthouses", "--json").stdout)
        assert [h["role"] for h in found] == ["assistant"] and "lighthouses" in found[0]["snippet"]
        assert run_conv("search", "quokka", "seventeen").stdout.count(b"quokka") == 1


def test_a_finished_command_leaves_the_index_file_closed(fake, conv_home):
    """conv run again and again in one process (as the tests and conv chat
    do) leaves no connection to the index open: the SQLite function reading a
    turn's text once held the store, which held it back from the garbage
    collector, and a test worker reached 1,150 open files."""
    import gc
    import os

    assert run_conv("ask", "a question about lighthouses").returncode == 0
    for _ in range(10):
        assert b"lighthouses" in run_conv("search", "lighthouses").stdout
    gc.collect()
    index = str(conv_home / "cache" / "index.sqlite")
    held = [fd for fd in os.listdir("/proc/self/fd") if os.path.realpath(f"/proc/self/fd/{fd}") == index]
    assert held == []


def test_changes_made_with_git_show_up(fake, store_path, tmp_path):
    conv_id = json.loads(run_conv("ask", "--json", "original title").stdout)["conversation"]
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(store_path), str(work))
    meta = next(work.glob(f"conversations/*/*/{conv_id}/conversation.md"))
    meta.write_text(meta.read_text().replace("title: original title", "title: edited with git"))
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "retitle")
    git(work, "push", "-q", "origin", "HEAD:main")
    assert [c["title"] for c in listing()] == ["edited with git"]
    git(work, "rm", "-rq", meta.parent.relative_to(work).as_posix())
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "remove")
    git(work, "push", "-q", "origin", "HEAD:main")
    assert listing() == []


def damage(index, how: str) -> None:
    """The index file written over the way a crash, a full disk or a stray
    tool might leave it."""
    data = index.read_bytes()
    assert len(data) > 8192, len(data)  # several pages: a truncation cuts tables, not just the header
    if how == "garbage":
        index.write_bytes(bytes(range(256)) * (len(data) // 256))
    elif how == "truncated":
        index.write_bytes(data[: len(data) // 3])
    elif how == "header only":
        index.write_bytes(data[:100])
    elif how == "empty":
        index.write_bytes(b"")
    elif how in ("another schema", "another schema, same version"):
        index.unlink()
        with sqlite3.connect(index) as db:  # a valid database, but not conv's tables
            db.execute("CREATE TABLE conversations (id INTEGER PRIMARY KEY, body BLOB)")
            db.execute("INSERT INTO conversations (body) VALUES (x'00ff')")
            db.execute("CREATE TABLE turns (x)")
            if how == "another schema, same version":  # even the version conv checks says yes
                db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
                db.execute(f"INSERT INTO meta VALUES ('schema', '{SCHEMA}')")
        db.close()
    else:
        raise ValueError(how)


def answered(*args) -> tuple[bytes, bytes]:
    """conv ARGS must succeed without a word of traceback; its stdout and stderr."""
    done = run_conv(*args)
    assert done.returncode == 0 and b"Traceback" not in done.stderr, (args, done.stderr.decode())
    return done.stdout, done.stderr


@pytest.mark.parametrize("how", ["garbage", "truncated", "header only", "empty", "another schema",
                                 "another schema, same version"])
def test_a_corrupt_index_file_answers_list_search_and_follow_ups_as_before(fake, conv_home, store_path, how):
    """The CLI after its index file is damaged: conv list, conv search and a
    follow-up (conv ask -c, which finds the latest conversation through the
    index) give exactly the answers they gave before, and the follow-up
    sends the whole conversation and lands in it."""
    fake.set(reply="ECHO")
    for n in range(6):
        run_conv("ask", f"topic {n} about rebase" if n % 2 else f"topic {n} about pasta")
        run_conv("ask", "-c", f"more on {n} " + "with a longer line of text " * 20)
    latest = listing()[0]["id"]
    questions = [
        ("list", "--json"), ("list", "-n", "2", "--json"), ("search", "rebase", "--json"),
        ("search", "pasta", "--json"), ("search", "longer", "--json", "-n", "3"),
        ("ask", "-c", "--dry-run", "--json", "and the follow-up?"),
    ]
    before = [answered(*q) for q in questions]
    history = [(t["role"], t["content"]) for t in json.loads(answered("show", latest, "--json")[0])["turns"]]
    preview = json.loads(before[5][0])
    assert [(m["role"], m["content"]) for m in preview["messages"]] == history + [("user", "and the follow-up?")]
    assert len(json.loads(before[2][0])) == 3 and len(history) == 4
    index = conv_home / "cache" / "index.sqlite"

    damage(index, how)
    assert [answered(*q) for q in questions] == before
    damage(index, how)  # and once more, this time with the follow-up first
    reply = json.loads(answered("ask", "-c", "--json", "and the follow-up?")[0])
    assert reply["conversation"] == latest and reply["answer"] == "and the follow-up?"
    assert fake.requests[-1]["messages"] == preview["messages"]
    assert [(t["role"], t["content"]) for t in json.loads(answered("show", latest, "--json")[0])["turns"]][-2:] \
        == [("user", "and the follow-up?"), ("assistant", "and the follow-up?")]
    assert listing()[0]["id"] == latest and listing()[0]["turns"] == 6
    def undated(found: list) -> list:  # (a hit says when its conversation was updated: the follow-up moved it)
        return [[{k: v for k, v in hit.items() if k != "date"} for hit in json.loads(out)] for out, _ in found]

    assert undated(answered(*q) for q in questions[2:5]) == undated(before[2:5])  # the new turns hold none of the words
    git(store_path, "fsck", "--strict")


@pytest.mark.parametrize("damage", ["index is a directory", "cache is a file"])
def test_an_index_that_cannot_be_used_never_stops_conv(fake, conv_home, store_path, damage):
    """The index is a cache: where it cannot be, conv works from the store
    (an index in memory for that run) and says once, in one line, what to do."""
    fake.set(reply="ECHO")
    cid = json.loads(run_conv("ask", "--json", "how does rebase work?").stdout)["conversation"]
    before = listing()
    cache = conv_home / "cache"
    index = cache / "index.sqlite"
    if damage == "index is a directory":
        shutil.rmtree(cache)
        index.mkdir(parents=True)
        (index / "notes.txt").write_text("someone's file")
        expected = (f"conv: the index {index} cannot be used (it is a directory); ", f"Remove it: rm -r {index}")
    else:
        shutil.rmtree(cache)
        cache.write_text("someone's file")
        expected = (f"conv: the index {index} cannot be used ({cache} is a file, not a folder); ",
                    f"Move that file away: mv {cache} {cache}.old")

    def said_once(done) -> None:
        assert done.returncode == 0, done.stderr.decode()
        lines = done.stderr.decode().splitlines()
        assert len(lines) == 1 and lines[0].startswith(expected[0]) and lines[0].endswith(expected[1]), lines

    done = run_conv("list", "--json")
    said_once(done)
    assert json.loads(done.stdout) == before
    done = run_conv("ask", "--json", "--cid", cid, "and interactive mode?")
    said_once(done)
    assert json.loads(done.stdout)["answer"] == "and interactive mode?"
    assert "and interactive mode?" in git(store_path, "log", "-p", "-1", "HEAD~1")
    done = run_conv("search", "--json", "interactive")
    said_once(done)
    assert cid in done.stdout.decode()
    done = run_conv("show", cid)
    assert done.returncode == 0, done.stderr
    if done.stderr:  # a full id is read from the store without opening the index: nothing to say then
        said_once(done)
    assert "and interactive mode?" in done.stdout.decode()
    # what was there is left as it was: conv does not remove what it did not make
    if damage == "index is a directory":
        assert (index / "notes.txt").read_text() == "someone's file"
    else:
        assert cache.read_text() == "someone's file"


def test_one_damaged_turn_leaves_the_rest_readable_and_is_named(fake, store_path, tmp_path):
    """Issue 13, defect 7: show, search, export and follow up on the readable
    turns; the unreadable file is named with the reason."""
    fake.set(reply="Rebase replays commits.")
    conv_id = json.loads(run_conv("ask", "--json", "explain git rebase").stdout)["conversation"]
    fake.set(reply="Use autosquash.")
    assert run_conv("ask", "--cid", conv_id, "and fixups?").returncode == 0
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(store_path), str(work))
    folder = next(work.glob(f"conversations/*/*/{conv_id}"))
    broken = sorted(folder.glob("*-assistant.md"))[0]
    broken.write_text("no frontmatter here, written by hand\n")
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "a hand edit gone wrong")
    git(work, "push", "-q", "origin", "HEAD:main")
    path = f"{folder.relative_to(work).as_posix()}/{broken.name}"

    shown = json.loads(answered("show", conv_id, "--json")[0])
    assert [t["content"] for t in shown["turns"]] == ["explain git rebase", "and fixups?", "Use autosquash."]
    assert list(shown["unreadable"]) == [path] and "no frontmatter" in shown["unreadable"][path]
    page = answered("show", conv_id)[0].decode()
    assert f"unreadable, left out: {path}" in page and "Use autosquash." in page
    hits = json.loads(answered("search", "autosquash", "--json")[0])
    assert [h["id"] for h in hits] == [conv_id]
    [row] = listing()
    assert row["title"] == "explain git rebase" and path in row["broken"]
    assert "Use autosquash." in answered("export", conv_id, "--format", "md")[0].decode()
    _, err = answered("ask", "--cid", conv_id, "and then?")
    assert f"{path} cannot be read" in err.decode()
    assert [m["content"] for m in fake.requests[-1]["messages"]] == \
        ["explain git rebase", "and fixups?", "Use autosquash.", "and then?"]


def test_a_word_in_most_turns_is_searched_among_the_latest_turns_holding_it(fake, monkeypatch):
    """Past COMMON turns holding every word, search ranks the latest of them
    instead of all (a common word at 100,000 conversations took 436 ms)."""
    import conv.index.search as search

    for n in range(3):
        run_conv("ask", "--new", f"the question number {n}")
    monkeypatch.setattr(search, "COMMON", 1)
    hits = json.loads(run_conv("search", "the", "question", "--json").stdout)
    assert len(hits) == 3 and all("question" in h["snippet"] for h in hits)
    assert json.loads(run_conv("search", "number", "2", "--json").stdout)[0]["snippet"].count("2") == 1


@pytest.mark.parametrize("git_on_path", [True, False])
def test_a_build_that_reads_files_ahead_answers_as_one_that_does_not(fake, conv_home, monkeypatch, git_on_path):
    """An index build reads its conversations' files ahead through one git
    cat-file --batch (dulwich alone without git): the same index either way."""
    import conv.index.build as build

    fake.set(reply="ECHO")
    for n in range(6):
        run_conv("ask", "--new", f"topic {n} about rebasing")
        run_conv("ask", "-c", f"more on {n}")
    run_conv("delete", listing()[0]["id"])
    before = (listing(), json.loads(run_conv("search", "rebasing", "--json").stdout))
    monkeypatch.setattr(build, "PRELOAD_FROM", 1)
    monkeypatch.setattr(build, "PRELOAD_CHUNK", 4)
    if not git_on_path:
        monkeypatch.setenv("PATH", "/nonexistent")
    (conv_home / "cache" / "index.sqlite").unlink()
    assert (listing(), json.loads(run_conv("search", "rebasing", "--json").stdout)) == before


def test_the_full_text_index_matches_the_store_after_every_kind_of_change(fake, store_path, tmp_path):
    """The index gives FTS5 each turn's text as it adds it and reads it from the
    store to take it out (issue 15): after retries, a fork, a git edit, a delete,
    a restore and a purge, FTS5's own integrity check (against the text the
    store holds) passes and searches find the text of now, never of before."""
    from conv.index import Index
    from conv.store import Store

    fake.set(reply="ECHO")
    cid = json.loads(run_conv("ask", "--json", "walruses eat clams").stdout)["conversation"]
    run_conv("ask", "-c", "narwhals have tusks")
    fake.set(reply="a retried answer about belugas")
    run_conv("retry", cid)
    fake.set(reply="ECHO")
    other = json.loads(run_conv("ask", "--json", "--new", "quokkas smile").stdout)["conversation"]
    run_conv("fork", cid)
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(store_path), str(work))
    turn = next(p for p in work.glob(f"conversations/*/*/{cid}/*.md") if "narwhals" in p.read_text())
    turn.write_text(turn.read_text().replace("narwhals", "dugongs"))
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "edit")
    git(work, "push", "-q", "origin", "HEAD:main")
    assert run_conv("delete", other).returncode == 0
    assert run_conv("restore", other).returncode == 0

    def check():
        index = Index(Store())
        index.refresh()
        index.db.execute("INSERT INTO turn_fts (turn_fts, rank) VALUES ('integrity-check', 1)")
        index._close()

    check()
    hits = lambda word: len(json.loads(run_conv("search", word, "--json").stdout))  # noqa: E731
    assert hits("dugongs") == 1 and hits("narwhals") == 1  # the fork keeps the old turn
    assert hits("belugas") == 2 and hits("quokkas") == 1
    assert run_conv("delete", other).returncode == 0
    assert run_conv("clean", "--purge", "--yes").returncode == 0
    check()
    assert hits("quokkas") == 0


def test_a_search_too_long_or_a_limit_past_sqlites_integers_is_no_traceback(fake):
    ok("ask", "how do I rebase?")
    assert "conv searches with at most 64" in fails("search", *["rebase"] * 70, code=2)
    assert "rebase" in ok("search", "rebase", "-n", "99999999999999999999").stdout.decode()
    assert len(json.loads(ok("list", "-n", "99999999999999999999", "--json").stdout)) == 1
