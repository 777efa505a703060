"""Bad input gets one line that says what to do, a non-zero exit, no
traceback, and nothing in the store is lost or damaged."""

import json

import pytest
from conftest import fails, git, run_conv


def ask(*args, **kw):
    done = run_conv("ask", "--json", *args, **kw)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)["conversation"]


@pytest.mark.parametrize(
    "data, says",
    [
        (b"caf\xe9 latin-1\n", "not UTF-8"),
        (b"text\x00with NUL", "binary data"),
        (b"x" * (10 * 1024 * 1024), "more than 4 MB"),
    ],
)
def test_stdin_that_is_not_text_is_refused_before_anything_is_stored(fake, store_path, data, says):
    ask("a kept conversation")
    head = git(store_path, "rev-parse", "HEAD")
    assert says in fails("ask", "-c", "what is this?", input=data, code=1)  # bad input, not a wrong command line
    assert git(store_path, "rev-parse", "HEAD") == head
    assert len(fake.requests) == 1


def test_a_question_in_an_error_is_not_followed_by_a_full_stop():
    from conv.errors import ConvError

    assert str(ConvError("is the server there?", "Start it.")) == "is the server there? Start it."
    assert str(ConvError("no such file.", "Check it.")) == "no such file. Check it."


@pytest.mark.parametrize("args", [["ask"], ["ask", "   "], ["ask", "-c"]])
def test_an_empty_question_is_refused(fake, args):
    assert "nothing to ask" in fails(*args)
    assert fake.requests == []


@pytest.mark.parametrize("ref", ["../x", "a b", "x\x1b[2J", "k3f9;rm -rf", "a" * 65])
def test_hostile_refs_are_invalid(fake, ref):
    ask("something")
    line = fails("show", ref, code=1)
    assert "invalid conversation reference" in line and "\x1b" not in line


def test_unknown_and_ambiguous_refs(fake):
    from conv.format.model import Conversation, Turn
    from conv.store import Store

    store = Store()
    for conv_id in ("k3f9x2aaaaaa", "k3f9x2bbbbbb", "zz0000000001"):
        conv = Conversation(id=conv_id, created="2026-11-21T00:00:00.000Z", title=conv_id)
        store.add_turns(conv_id, lambda parent: [Turn("20261121-000000.000-aaaa-user", "user", "hi")], "t", conv)
    assert "no conversation matches" in fails("show", "qqqqqqqq")
    line = fails("show", "k3f9")
    assert "ambiguous" in line and "k3f9x2aaaaaa" in line and "k3f9x2bbbbbb" in line
    assert "k3f9x2aaaaaa" in run_conv("show", "k3f9x2a").stdout.decode()  # unique prefix
    assert "zz0000000001" in run_conv("show", "0001").stdout.decode()  # unique suffix
    assert "invalid" in fails("show", "")
    assert "no conversation matches" in fails("ask", "--cid", "qqqqqq", "hello")
    assert fake.requests == []


def test_a_hand_corrupted_conversation_breaks_nothing_else(fake, store_path, tmp_path):
    good = ask("good one")
    bad = ask("bad one")
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(store_path), str(work))
    meta = next(work.glob(f"conversations/*/*/{bad}/conversation.md"))
    meta.write_text("---\ntitle: [oops\n---\n")
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "hand edit")
    git(work, "push", "-q", "origin", "HEAD:main")

    listed = json.loads(run_conv("list", "--json").stdout)
    assert {c["id"]: bool(c["broken"]) for c in listed} == {good: False, bad: True}
    line = fails("show", bad)
    assert "not valid YAML" in line and bad in line
    assert "good one" in run_conv("show", good).stdout.decode()
    assert "broken" not in fails("ask", "--cid", bad, "more")
    ask("--cid", good, "still works")


def test_a_hand_edited_time_that_is_no_time_never_stops_a_follow_up(fake, store_path, tmp_path):
    """A turn's ``created`` edited by hand into something that is not a time:
    the resume note, the feedback reading and -c's expiry cannot tell how long
    ago it was, and go on as if it were recent (a traceback before)."""
    import subprocess

    conv_id = ask("explain git rebase")
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(store_path), str(work))
    answer = next(work.glob("conversations/*/*/*/*-assistant.md"))
    answer.write_text(answer.read_text().replace("created: ", "created: yesterday-ish #", 1))
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "a hand edit")
    subprocess.run(["git", "-C", str(work), "push", "-q", "origin", "HEAD:main"], check=True)
    for args in (["ask", "that is wrong"], ["ask", "--cid", conv_id, "and interactive mode?"]):
        done = run_conv(*args)
        assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr.decode()
    assert fake.requests[-2]["messages"] == [{"role": "user", "content": "that is wrong"}]  # a new question
    assert [m["content"] for m in fake.requests[-1]["messages"]][0] == "explain git rebase"  # no resume note
