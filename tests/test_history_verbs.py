"""conv fork / retry / log / diff / edit through the real CLI: what each one
commits (read back with the real git CLI), what it sends to the model (the
loopback fake records every request), and how it refuses bad input (one line,
the right exit code, nothing committed)."""

import hashlib
import itertools
import json
import os
import shlex
import signal
import subprocess
import sys
import time

import pytest
from conftest import fails, git, ok, run_conv

from conv.format.ids import conversation_path
from conv.format.model import Conversation, Turn

# ---- helpers -------------------------------------------------------------------

def ask(*args, **kw) -> dict:
    return json.loads(ok("ask", "--json", *args, **kw).stdout)


def show(ref: str, **kw) -> dict:
    return json.loads(ok("show", ref, "--json", **kw).stdout)


def contents(ref: str) -> list[tuple[str, str]]:
    return [(t["role"], t["content"]) for t in show(ref)["turns"]]


def sent(request: dict) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in request["messages"]]


def head(store) -> str:
    return git(store, "rev-parse", "HEAD").strip()


def turn_at(store, rev: str, conv_id: str, name: str) -> Turn:
    """A turn file as git has it at ``rev``, parsed."""
    return Turn.from_text(name, git(store, "show", f"{rev}:{conversation_path(conv_id)}/{name}.md"))


def exists_at(store, rev: str, path: str) -> bool:
    return subprocess.run(["git", "-C", str(store), "cat-file", "-e", f"{rev}:{path}"],
                          capture_output=True).returncode == 0


def objects(store) -> dict[str, str]:
    """Every object in the store: sha -> type."""
    out = git(store, "cat-file", "--batch-all-objects", "--batch-check")
    return {sha: kind for sha, kind, _size in (line.split() for line in out.splitlines())}


def count_loose(store) -> int:
    counts = dict(line.split(": ") for line in git(store, "count-objects", "-v").splitlines())
    return int(counts["count"])


def three_exchanges(fake) -> tuple[str, list[str]]:
    """A conversation q1 a1 q2 a2 q3 a3 (the fake echoes each question)."""
    fake.set(reply="ECHO")
    first = ask("q1 rebase")
    ok("ask", "--cid", first["conversation"], "q2 interactive")
    ok("ask", "--cid", first["conversation"], "q3 autosquash")
    names = [t["name"] for t in show(first["conversation"])["turns"]]
    assert len(names) == 6
    return first["conversation"], names


# ---- conv fork -----------------------------------------------------------------

def test_fork_takes_the_first_turns_and_records_where_it_came_from(fake, store_path):
    parent, names = three_exchanges(fake)
    before = head(store_path)
    forked = json.loads(ok("fork", parent, "--at", "3", "--title", "try it with rebase -i", "--json").stdout)
    assert forked["forked_from"] == parent and forked["turns"] == 3
    child = forked["id"]
    assert child != parent and forked["commit"] == head(store_path)

    shown = show(child)
    assert [t["name"] for t in shown["turns"]] == names[:3]
    assert [(t["role"], t["content"]) for t in shown["turns"]] == contents(parent)[:3]
    assert shown["title"] == "try it with rebase -i"
    assert len(show(parent)["turns"]) == 6  # the parent is untouched

    meta = Conversation.from_text(git(store_path, "show", f"HEAD:{conversation_path(child)}/conversation.md"))
    assert meta.id == child and meta.title == "try it with rebase -i"
    assert meta.forked_from == {"conversation": parent, "turn": names[2], "commit": before}
    assert git(store_path, "rev-parse", "HEAD~1").strip() == before  # one commit
    assert git(store_path, "log", "-1", "--format=%s").strip() == f"{child}: fork of {parent} at turn 3"

    listed = json.loads(ok("list", "--json").stdout)
    assert {c["id"]: c["forked_from"] for c in listed} == {parent: None, child: parent}


def test_fork_without_at_takes_everything_and_gets_a_default_title(fake):
    parent, names = three_exchanges(fake)
    forked = json.loads(ok("fork", parent[:6], "--json").stdout)
    assert forked["turns"] == 6
    shown = show(forked["id"])
    assert [t["name"] for t in shown["turns"]] == names
    assert shown["title"] == "q1 rebase (fork)"
    plain = ok("fork", parent).stdout.decode()
    assert plain.strip().endswith(f"fork of {parent} at turn 6")


def test_fork_copies_no_content_only_one_new_blob(fake, store_path):
    parent, names = three_exchanges(fake)
    before, loose = objects(store_path), count_loose(store_path)
    child = json.loads(ok("fork", parent, "--at", "4", "--json").stdout)["id"]
    new = {sha: kind for sha, kind in objects(store_path).items() if sha not in before}
    kinds = sorted(new.values())
    # root, conversations/, two shard levels and the fork's folder; one commit; one blob
    assert kinds == ["blob", "commit"] + ["tree"] * 5, new
    blob = next(sha for sha, kind in new.items() if kind == "blob")
    assert git(store_path, "rev-parse", f"HEAD:{conversation_path(child)}/conversation.md").strip() == blob
    assert [sha for sha, kind in new.items() if kind == "commit"] == [head(store_path)]
    for name in names[:4]:  # the very same blobs as the parent's turns
        mine = git(store_path, "rev-parse", f"HEAD:{conversation_path(child)}/{name}.md").strip()
        theirs = git(store_path, "rev-parse", f"HEAD:{conversation_path(parent)}/{name}.md").strip()
        assert mine == theirs and mine in before
    assert not exists_at(store_path, "HEAD", f"{conversation_path(child)}/{names[4]}.md")
    # git count-objects agrees: seven more loose objects
    assert count_loose(store_path) == loose + 7


def test_fork_becomes_this_terminals_conversation(fake):
    t1, t2 = {"CONV_SESSION": "t1"}, {"CONV_SESSION": "t2"}
    fake.set(reply="ECHO")
    parent = ask("q1 rebase", env=t1)["conversation"]
    ok("ask", "-c", "q2 interactive", env=t1)
    ok("ask", "-c", "q3 autosquash", env=t1)
    other = ask("elsewhere", env=t2)["conversation"]  # the latest conversation now
    child = json.loads(ok("fork", "--at", "3", "--json", env=t1).stdout)["id"]  # no ref: t1's current

    assert ask("-c", "what about fixup?", env=t1)["conversation"] == child
    assert sent(fake.requests[-1]) == [
        ("user", "q1 rebase"), ("assistant", "q1 rebase"), ("user", "q2 interactive"),
        ("user", "what about fixup?"),
    ]
    assert len(show(child)["turns"]) == 5 and len(show(parent)["turns"]) == 6
    assert ask("-c", "still here", env=t2)["conversation"] == other  # another terminal is not moved


def test_list_tree_shows_the_fork_under_its_parent(fake):
    parent, _ = three_exchanges(fake)
    fake.set(reply="unrelated")
    loner = ask("an unrelated topic")["conversation"]
    child = json.loads(ok("fork", parent, "--at", "2", "--title", "the fork", "--json").stdout)["id"]
    flat = [c["id"] for c in json.loads(ok("list", "--json").stdout)]
    assert flat == [child, loner, parent]  # most recently updated first
    tree = [c["id"] for c in json.loads(ok("list", "--tree", "--json").stdout)]
    assert tree == [loner, parent, child]  # the fork right under its parent
    lines = ok("list", "--tree").stdout.decode().splitlines()
    under = lines.index(next(line for line in lines if "the fork" in line))
    assert lines[under - 1].lstrip(" *").startswith(parent[:6])
    assert "└ the fork" in lines[under]


def test_fork_at_out_of_range_is_a_usage_error(fake, store_path):
    parent, _ = three_exchanges(fake)
    before = head(store_path)
    for at in ("0", "7", "-1"):
        line = fails("fork", parent, "--at", at, code=2)
        assert "--at must be between 1 and 6" in line, line
    assert head(store_path) == before


def test_fork_of_an_unknown_conversation(fake, store_path):
    three_exchanges(fake)
    before = head(store_path)
    assert "no conversation matches" in fails("fork", "qqqqqqqq", code=1)
    assert head(store_path) == before


def test_retry_and_edit_in_a_fork_leave_the_parent_alone(fake, store_path, tmp_path):
    parent, names = three_exchanges(fake)
    where_p = conversation_path(parent)
    blobs = {n: git(store_path, "rev-parse", f"HEAD:{where_p}/{n}.md").strip() for n in names}
    short = json.loads(ok("fork", parent, "--at", "3", "--json").stdout)["id"]  # ends with a question
    fake.set(reply="Answered in the fork.")
    ok("retry", short)
    assert sent(fake.requests[-1]) == [("user", "q1 rebase"), ("assistant", "q1 rebase"), ("user", "q2 interactive")]
    assert contents(short)[3] == ("assistant", "Answered in the fork.")
    assert turn_at(store_path, "HEAD", short, show(short)["turns"][3]["name"]).parent == names[2]

    full = json.loads(ok("fork", parent, "--at", "4", "--json").stdout)["id"]  # ends with a shared answer
    fake.set(reply="Retried in the fork.")
    ok("retry", full, "--wrong")
    assert contents(full)[3] == ("assistant", "Retried in the fork.")
    env = editor(tmp_path, "path.write_text(text.replace('\\nq1 rebase\\n\\n<!-- conv turn 3', "
                           "'\\nq1 rebase, edited\\n\\n<!-- conv turn 3'))\n")
    assert json.loads(ok("edit", full, "--json", env=env).stdout)["changed"] == [names[1]]
    assert contents(full)[1] == ("assistant", "q1 rebase, edited")

    assert contents(parent) == [(r, c) for r, c in zip(["user", "assistant"] * 3, [
        "q1 rebase", "q1 rebase", "q2 interactive", "q2 interactive", "q3 autosquash", "q3 autosquash"])]
    assert {n: git(store_path, "rev-parse", f"HEAD:{where_p}/{n}.md").strip() for n in names} == blobs
    assert turn_at(store_path, "HEAD", parent, names[1]).edited is None


# ---- conv retry ----------------------------------------------------------------

def two_exchanges(fake, old="Merge joins histories.") -> tuple[str, list[str]]:
    fake.set(reply="Rebase replays commits.")
    conv_id = ask("explain git rebase")["conversation"]
    fake.set(reply=old)
    ok("ask", "--cid", conv_id, "and merge?")
    return conv_id, [t["name"] for t in show(conv_id)["turns"]]


def test_retry_with_a_hint_replaces_the_answer_and_keeps_the_old_one_in_history(fake, store_path):
    conv_id, names = two_exchanges(fake)
    old_head, where = head(store_path), conversation_path(conv_id)
    fake.set(reply="Merge makes a merge commit.")
    done = json.loads(ok("retry", conv_id, "--hint", "say what merge makes", "--json").stdout)
    assert done["answer"] == "Merge makes a merge commit." and done["question_turn"] == names[2]

    messages = sent(fake.requests[-1])
    assert messages[:3] == [("user", "explain git rebase"), ("assistant", "Rebase replays commits."),
                            ("user", "and merge?")]
    assert messages[3] == ("assistant", "Merge joins histories.")
    assert messages[4][0] == "user" and "say what merge makes" in messages[4][1]
    assert len(messages) == 5

    shown = show(conv_id)["turns"]
    assert len(shown) == 4 and [t["name"] for t in shown[:3]] == names[:3]
    assert shown[3]["name"] == done["answer_turn"] != names[3]
    assert shown[3]["content"] == "Merge makes a merge commit."
    new = turn_at(store_path, "HEAD", conv_id, done["answer_turn"])
    assert new.replaces == names[3] and new.hint == "say what merge makes" and new.finish == "stop"
    assert new.parent == names[2]

    assert not exists_at(store_path, "HEAD", f"{where}/{names[3]}.md")
    assert turn_at(store_path, old_head, conv_id, names[3]).content == "Merge joins histories."
    assert "-Merge joins histories." in git(store_path, "log", "-p", "--", where).splitlines()
    assert git(store_path, "log", "-1", "--format=%s").startswith(f"{conv_id}: retry, answer")

    diff = ok("diff", conv_id).stdout.decode().splitlines()
    assert diff[0] == f"--- {conv_id[:6]}@{old_head[:8]}" and diff[1].startswith(f"+++ {conv_id[:6]}@")
    assert [line for line in diff if line.startswith("= ")] == ["= turns 1–3 identical (user, assistant, user)"]
    assert "-Merge joins histories." in diff and "+Merge makes a merge commit." in diff
    assert "\x1b" not in "".join(diff)


def test_retry_hint_reads_as_its_own_sentence(fake):
    """The hint must not run into the "Please answer again." that follows it."""
    conv_id, _ = two_exchanges(fake)
    told = []
    for hint in ("say what merge makes.", "say what merge makes"):
        ok("retry", conv_id, "--hint", hint)
        told.append(sent(fake.requests[-1])[-1][1])
    assert all("say what merge makes. Please" in t and ".." not in t for t in told), told


def test_retry_without_a_hint_asks_the_question_again(fake, store_path):
    conv_id, names = two_exchanges(fake)
    fake.set(reply="Second try.")
    assert ok("retry", conv_id).stdout.decode() == "Second try.\n"
    assert sent(fake.requests[-1]) == [
        ("user", "explain git rebase"), ("assistant", "Rebase replays commits."), ("user", "and merge?"),
    ]
    shown = show(conv_id)["turns"]
    assert [t["content"] for t in shown] == ["explain git rebase", "Rebase replays commits.", "and merge?",
                                             "Second try."]
    new = turn_at(store_path, "HEAD", conv_id, shown[3]["name"])
    assert new.replaces == names[3] and new.hint is None


def test_retry_wrong_and_model(fake, store_path):
    conv_id, names = two_exchanges(fake)
    fake.set(reply="Third try.")
    done = json.loads(ok("retry", "--wrong", "-m", "gpt-4o", "--json").stdout)  # no ref: the latest
    assert done["conversation"] == conv_id and done["model"] == "gpt-4o"
    request = fake.requests[-1]
    assert request["model"] == "gpt-4o"
    assert sent(request)[-2] == ("assistant", "Merge joins histories.")
    assert sent(request)[-1][0] == "user" and sent(request)[-1][1].startswith("That answer was wrong")
    assert turn_at(store_path, "HEAD", conv_id, done["answer_turn"]).model == "gpt-4o"


def test_retry_answers_a_question_whose_answer_failed(fake, store_path):
    fake.set(reply="Fine.")
    conv_id = ask("first")["conversation"]
    fake.set(mode="500", retry_after=0)
    assert "500" in fails("ask", "--cid", conv_id, "second", code=3)
    failed = show(conv_id)["turns"]
    assert [t["role"] for t in failed] == ["user", "assistant", "user", "assistant"]
    assert failed[3]["finish"] == "error" and failed[3]["content"] == ""

    fake.set(mode="ok", reply="Now answered.")
    done = json.loads(ok("retry", conv_id, "--json").stdout)
    assert sent(fake.requests[-1]) == [("user", "first"), ("assistant", "Fine."), ("user", "second")]
    shown = show(conv_id)["turns"]
    assert [(t["role"], t["content"]) for t in shown] == [
        ("user", "first"), ("assistant", "Fine."), ("user", "second"), ("assistant", "Now answered.")]
    assert shown[3]["finish"] == "stop" and shown[3]["name"] == done["answer_turn"]
    assert turn_at(store_path, "HEAD", conv_id, done["answer_turn"]).replaces == failed[3]["name"]


def test_retry_answers_a_question_left_without_any_answer(fake, store_path, conv_home):
    """conv killed mid-answer: the question is stored, no answer file at all."""
    fake.set(reply="Fine.")
    conv_id = ask("first")["conversation"]
    fake.set(mode="slow")
    env = {**os.environ, "CONV_HOME": str(conv_home)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    proc = subprocess.Popen([sys.executable, "-m", "conv", "ask", "--cid", conv_id, "unanswered"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 20
    while len(fake.requests) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    assert [t["role"] for t in show(conv_id)["turns"]] == ["user", "assistant", "user"]

    fake.set(mode="ok", reply="Late answer.")
    done = json.loads(ok("retry", conv_id, "--json").stdout)
    assert sent(fake.requests[-1])[-1] == ("user", "unanswered")
    assert contents(conv_id)[-2:] == [("user", "unanswered"), ("assistant", "Late answer.")]
    new = turn_at(store_path, "HEAD", conv_id, done["answer_turn"])
    assert new.replaces is None and new.finish == "stop"
    assert git(store_path, "log", "-1", "--format=%s").startswith(f"{conv_id}: answer")


def test_retry_that_fails_keeps_the_old_answer(fake, store_path):
    conv_id, names = two_exchanges(fake, old="The good answer.")
    old_head = head(store_path)
    fake.set(mode="500", retry_after=0)
    assert "500" in fails("retry", conv_id, code=3)

    # nothing arrived: nothing is committed, the good answer stays in place
    assert head(store_path) == old_head
    shown = show(conv_id)["turns"]
    assert [t["name"] for t in shown] == names and shown[3]["content"] == "The good answer."

    fake.set(mode="ok", reply="Recovered.")
    ok("retry", conv_id)
    assert contents(conv_id)[3] == ("assistant", "Recovered.")
    assert "-The good answer." in ok("diff", conv_id).stdout.decode().splitlines()


def test_retry_without_a_current_or_a_known_conversation(fake):
    assert "no current conversation" in fails("retry", code=1)
    assert "no conversation matches" in fails("retry", "qqqqqqqq", code=1)
    assert fake.requests == []


def test_retry_of_a_conversation_without_a_question(fake, store_path):
    """A conversation whose turns were all removed by hand (conversation.md alone): nothing to answer again."""
    conv_id = json.loads(ok("ask", "--json", "a question").stdout)["conversation"]
    folder = next(p.rsplit("/", 1)[0] for p in git(store_path, "ls-tree", "-r", "--name-only", "HEAD").split()
                  if f"/{conv_id}/" in p)
    index = {**os.environ, "GIT_INDEX_FILE": str(store_path.parent / "scratch-index")}
    subprocess.run(["git", "-C", str(store_path), "read-tree", "HEAD"], env=index, check=True)
    for path in git(store_path, "ls-tree", "-r", "--name-only", "HEAD", folder).split():
        if not path.endswith("/conversation.md"):
            subprocess.run(["git", "-C", str(store_path), "rm", "-q", "--cached", path], env=index, check=True)
    tree = subprocess.run(["git", "-C", str(store_path), "write-tree"], env=index, capture_output=True, text=True,
                          check=True).stdout.strip()
    head = git(store_path, "rev-parse", "HEAD").strip()
    git(store_path, "update-ref", "refs/heads/main",
        git(store_path, "commit-tree", tree, "-p", head, "-m", "by hand").strip())
    sent = len(fake.requests)
    line = fails("retry", conv_id, code=2)
    assert f"{conv_id} has no question to answer again" in line and "conv ask --cid" in line
    assert len(fake.requests) == sent


# ---- conv log ------------------------------------------------------------------

def test_log_lists_every_change_newest_first_with_commit_ids(fake, store_path, tmp_path):
    parent, _ = three_exchanges(fake)
    child = json.loads(ok("fork", parent, "--at", "2", "--json").stdout)["id"]
    ok("title", child, "forked", "title")
    ok("tag", child, "+git")
    ok("status", child, "paused")
    fake.set(reply="first")
    ok("ask", "--cid", child, "more")
    fake.set(reply="second")
    ok("retry", child)
    editor = tmp_path / "ed.py"
    editor.write_text("import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
                      "p.write_text(p.read_text().replace('\\nsecond\\n', '\\nsecond, edited\\n'))\n")
    ok("edit", child, env={"EDITOR": f"{shlex.quote(sys.executable)} {shlex.quote(str(editor))}"})

    found = json.loads(ok("log", child, "--json").stdout)
    assert found["conversation"] == child
    messages = [c["message"] for c in found["commits"]]
    assert messages == [
        f"{child}: edit (1 changed)",
        f"{child}: retry, answer (gpt-4o-mini, 1 token)",
        f"{child}: answer (gpt-4o-mini, 1 token)",
        f"{child}: ask (active again)",  # a paused conversation asked again
        f"{child}: status paused",
        f"{child}: tags +git",
        f"{child}: title 'forked title'",
        f"{child}: fork of {parent} at turn 2",
    ], messages
    # the same commits, in the same order, as git log of the conversation's folder
    assert [c["commit"] for c in found["commits"]] == \
        git(store_path, "log", "--format=%H", "--", conversation_path(child)).split()
    times = [c["time"] for c in found["commits"]]
    assert times == sorted(times, reverse=True)

    table = ok("log", child).stdout.decode().splitlines()
    assert table[0].split() == ["COMMIT", "WHEN", "WHAT"]
    assert [line.split()[0] for line in table[1:]] == [c["commit"][:8] for c in found["commits"]]
    assert table[1].endswith("edit (1 changed)")
    # the parent's log holds only its own commits
    assert all(c["message"].startswith(f"{parent}: ")
               for c in json.loads(ok("log", parent, "--json").stdout)["commits"])


def test_log_ids_work_with_diff_rev(fake, store_path):
    fake.set(reply="ECHO")
    conv_id = ask("q1")["conversation"]
    ok("ask", "-c", "q2")
    fake.set(reply="changed")
    ok("retry")
    commits = [c["commit"] for c in json.loads(ok("log", conv_id, "--json").stdout)["commits"]]
    retried, answered2, asked2, answered1, asked1 = commits

    def rev(spec):
        return json.loads(ok("diff", conv_id, "--rev", spec, "--json").stdout)

    first = rev(f"{asked1[:8]}..{answered1[:8]}")  # the first answer arriving
    assert first["shared"] == 1 and first["shared_roles"] == ["user"]
    assert [(t["kind"], t["role"], t["b_text"]) for t in first["turns"]] == [("only_b", "assistant", "q1")]
    assert first["a"] == f"{conv_id[:6]}@{asked1[:8]}" and first["b"] == f"{conv_id[:6]}@{answered1[:8]}"

    retry = rev(f"{answered2}..{retried}")  # full ids work too
    assert retry["shared"] == 3
    assert [(t["kind"], t["a_text"], t["b_text"]) for t in retry["turns"]] == [("changed", "q2", "changed")]

    to_now = rev(f"{answered1[:7]}..")
    assert to_now["b"] == f"{conv_id[:6]}@{retried[:8]}"
    assert [(t["kind"], t["role"]) for t in to_now["turns"]] == [("only_b", "user"), ("only_b", "assistant")]
    assert rev(answered1[:7]) == to_now  # X alone: X.. (to now)
    assert rev(f"{retried[:8]}")["identical"]
    created = git(store_path, "rev-list", "--max-parents=0", "HEAD").strip()  # before the conversation was
    whole = rev(f"{created[:8]}..")
    assert whole["shared"] == 0 and [t["kind"] for t in whole["turns"]] == ["only_b"] * 4
    assert json.loads(ok("log", "--json").stdout)["conversation"] == conv_id  # no ref: the current one
    plain = ok("diff", conv_id, "--rev", f"{asked1[:8]}..{answered1[:8]}").stdout.decode().splitlines()
    assert plain == [f"--- {conv_id[:6]}@{asked1[:8]}", f"+++ {conv_id[:6]}@{answered1[:8]}",
                     "= turn 1 identical (user)", "@@ turn 2 · assistant (only in B) @@", "+q1"]


def craft_commit(store, conv_id: str, prefix: str) -> str:
    """A commit on main (tree unchanged, conv's message style) whose id starts with ``prefix``."""
    parent = head(store)
    tree = git(store, "rev-parse", "HEAD^{tree}").strip()
    now = int(time.time())
    for n in itertools.count():
        body = (f"tree {tree}\nparent {parent}\nauthor conv <conv@localhost> {now} +0000\n"
                f"committer conv <conv@localhost> {now} +0000\n\n{conv_id}: note {n}\n").encode()
        sha = hashlib.sha1(b"commit %d\0" % len(body) + body).hexdigest()
        if sha.startswith(prefix):
            break
    written = subprocess.run(["git", "-C", str(store), "hash-object", "-t", "commit", "-w", "--stdin"],
                             input=body, capture_output=True, check=True).stdout.decode().strip()
    assert written == sha
    git(store, "update-ref", "refs/heads/main", sha, parent)
    return sha


def test_bad_unknown_and_ambiguous_commit_ids(fake, store_path):
    fake.set(reply="ECHO")
    conv_id = ask("q1")["conversation"]
    ok("ask", "-c", "q2")
    first = json.loads(ok("log", conv_id, "--json").stdout)["commits"][-1]["commit"]
    before = head(store_path)
    for bad in ("xyz1", "abc", f"{first[:8]}..nope"):
        assert "is not a commit id" in fails("diff", conv_id, "--rev", bad, code=2), bad
    every = set(objects(store_path))
    unknown = next(p for p in (f"{n:08x}" for n in itertools.count(0xdeadbeef))
                   if not any(s.startswith(p) for s in every))
    assert f"commit '{unknown}' is not in the store's history" in fails("diff", conv_id, "--rev", unknown, code=1)
    assert "is not in the store's history" in fails("diff", conv_id, "--rev", f"{first[:8]}..{unknown}", code=1)

    crafted = craft_commit(store_path, conv_id, first[:4])
    git(store_path, "fsck", "--strict")  # a sound commit, as far as git is concerned
    assert crafted in [c["commit"] for c in json.loads(ok("log", conv_id, "--json").stdout)["commits"]]
    line = fails("diff", conv_id, "--rev", first[:4], code=1)
    assert f"commit '{first[:4]}' is ambiguous" in line
    unique = json.loads(ok("diff", conv_id, "--rev", f"{first[:12]}..{before[:12]}", "--json").stdout)
    assert unique["a"].endswith(first[:8]) and unique["b"].endswith(before[:8])
    assert "not both" in fails("diff", conv_id, conv_id, "--rev", first[:8], code=2)


def test_log_of_a_deleted_conversation(fake, store_path):
    fake.set(reply="ECHO")
    conv_id = ask("soon gone")["conversation"]
    ask("stays")
    before = json.loads(ok("log", conv_id, "--json").stdout)["commits"]
    ok("delete", conv_id)
    for ref in (conv_id, conv_id[:6]):
        after = json.loads(ok("log", ref, "--json").stdout)
        assert after["conversation"] == conv_id
        assert after["commits"][0]["message"] == f"{conv_id}: delete"
        assert after["commits"][0]["commit"] == head(store_path)
        assert after["commits"][1:] == before
    assert "soon gone" not in ok("list").stdout.decode()
    assert "no conversation matches" in fails("log", "qqqqqqqq", code=1)


# ---- conv diff A B ---------------------------------------------------------------

def test_diff_of_a_fork_against_its_parent(fake):
    parent, _ = three_exchanges(fake)
    child = json.loads(ok("fork", parent, "--at", "4", "--json").stdout)["id"]
    fake.set(reply="ECHO")
    ok("ask", "--cid", child, "q3 fixup instead")

    plain = ok("diff", child, parent).stdout.decode().splitlines()
    assert plain[:2] == [f"--- {child[:6]}", f"+++ {parent[:6]}"]
    assert [line for line in plain if line.startswith("= ")] == \
        ["= turns 1–4 identical (user, assistant, user, assistant)"]
    assert plain[2] == "= turns 1–4 identical (user, assistant, user, assistant)"
    assert plain[3:] == [
        "@@ turn 5 · user @@", "-q3 fixup instead", "+q3 autosquash",
        "@@ turn 6 · assistant @@", "-q3 fixup instead", "+q3 autosquash",
    ]
    assert not any("q1 rebase" in line or "q2 interactive" in line for line in plain)

    data = json.loads(ok("diff", child, parent, "--json").stdout)
    assert set(data) == {"a", "b", "identical", "shared", "shared_roles", "turns"}
    assert (data["a"], data["b"], data["identical"], data["shared"]) == (child[:6], parent[:6], False, 4)
    assert data["shared_roles"] == ["user", "assistant", "user", "assistant"]
    assert data["turns"] == [
        {"kind": "changed", "position_a": 5, "position_b": 5, "role": "user",
         "a_text": "q3 fixup instead", "b_text": "q3 autosquash"},
        {"kind": "changed", "position_a": 6, "position_b": 6, "role": "assistant",
         "a_text": "q3 fixup instead", "b_text": "q3 autosquash"},
    ]


def test_diff_of_a_short_fork_shows_what_only_the_parent_has(fake):
    parent, _ = three_exchanges(fake)
    child = json.loads(ok("fork", parent, "--at", "2", "--json").stdout)["id"]
    data = json.loads(ok("diff", child, parent, "--json").stdout)
    assert data["shared"] == 2 and not data["identical"]
    assert [(t["kind"], t["position_b"], t["b_text"]) for t in data["turns"]] == [
        ("only_b", 3, "q2 interactive"), ("only_b", 4, "q2 interactive"),
        ("only_b", 5, "q3 autosquash"), ("only_b", 6, "q3 autosquash")]


def test_diff_of_a_conversation_with_itself_or_an_unchanged_fork(fake):
    parent, _ = three_exchanges(fake)
    same = ok("diff", parent, parent).stdout.decode().splitlines()
    assert same[2:] == ["= all 6 turns identical (user, assistant, user, assistant, user, assistant)"]
    data = json.loads(ok("diff", parent, parent, "--json").stdout)
    assert data["identical"] and data["shared"] == 6 and data["turns"] == []
    child = json.loads(ok("fork", parent, "--json").stdout)["id"]
    assert json.loads(ok("diff", parent, child, "--json").stdout)["identical"]
    assert "no conversation matches" in fails("diff", parent, "qqqqqqqq", code=1)


def test_diff_of_a_conversation_with_one_version(fake, store_path):
    parent = ask("q1")["conversation"]
    child = json.loads(ok("fork", parent, "--at", "1", "--json").stdout)["id"]  # one commit so far
    before = head(store_path)
    assert "only one version" in fails("diff", child, code=2)
    assert head(store_path) == before


# ---- conv edit -----------------------------------------------------------------

def editor(tmp_path, body: str, name: str = "editor.py") -> dict:
    """EDITOR running a Python script on the transcript (its path is sys.argv[1])."""
    script = tmp_path / name
    script.write_text("import sys, pathlib\npath = pathlib.Path(sys.argv[1])\ntext = path.read_text()\n" + body)
    return {"EDITOR": f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"}


def test_edit_commits_the_changed_turns_and_keeps_the_old_text(fake, store_path, tmp_path, conv_home):
    fake.set(reply="Rebase replays your commits.")
    conv_id = ask("explain git rebase")["conversation"]
    fake.set(reply="Drop this answer.")
    ok("ask", "-c", "and merge?")
    names = [t["name"] for t in show(conv_id)["turns"]]
    old_head, where = head(store_path), conversation_path(conv_id)
    env = editor(tmp_path, (
        "text = text.replace('replays your commits', 'replays each commit')\n"
        "text = text.replace('title: explain git rebase', 'title: rebase notes')\n"
        "start = text.index('<!-- conv turn 4 ')\n"
        "path.write_text(text[:start])\n"  # the last block, marker and all
    ))
    done = json.loads(ok("edit", conv_id, "--json", env=env).stdout)
    assert done == {"conversation": conv_id, "changed": [names[1]], "deleted": [names[3]],
                    "title": "rebase notes", "commit": head(store_path)}
    assert git(store_path, "rev-parse", "HEAD~1").strip() == old_head  # one commit
    assert git(store_path, "log", "-1", "--format=%s").strip() == f"{conv_id}: edit (1 changed, 1 deleted, title)"
    assert sorted(git(store_path, "diff", "--name-status", old_head, "HEAD").splitlines()) == sorted([
        f"M\t{where}/{names[1]}.md", f"D\t{where}/{names[3]}.md", f"M\t{where}/conversation.md"])

    edited = turn_at(store_path, "HEAD", conv_id, names[1])
    assert edited.content == "Rebase replays each commit." and edited.edited
    assert edited.model == "gpt-4o-mini" and edited.finish == "stop"  # the rest of the frontmatter kept
    assert turn_at(store_path, old_head, conv_id, names[1]).content == "Rebase replays your commits."
    assert turn_at(store_path, old_head, conv_id, names[1]).edited is None
    assert turn_at(store_path, old_head, conv_id, names[3]).content == "Drop this answer."
    assert turn_at(store_path, "HEAD", conv_id, names[0]).edited is None

    shown = show(conv_id)
    assert shown["title"] == "rebase notes"
    assert [(t["role"], t["content"]) for t in shown["turns"]] == [
        ("user", "explain git rebase"), ("assistant", "Rebase replays each commit."), ("user", "and merge?")]
    assert json.loads(ok("log", conv_id, "--json").stdout)["commits"][0]["message"].startswith(f"{conv_id}: edit")
    assert not (conv_home / "cache" / "edit" / f"{conv_id}.md").exists()
    diff = ok("diff", conv_id).stdout.decode().splitlines()
    assert "-Rebase replays your commits." in diff and "+Rebase replays each commit." in diff
    assert "-Drop this answer." in diff


def test_edit_keeps_content_that_looks_like_a_marker(fake, store_path, tmp_path):
    tricky = "before\n<!-- conv turn 1 · user · nope -->\n\\<!-- conv escaped\n---\nafter\n\n"
    fake.set(reply=tricky)
    conv_id = ask("show me markers")["conversation"]
    env = editor(tmp_path, "path.write_text(text.replace('show me markers', 'show me the markers'))\n")
    done = json.loads(ok("edit", conv_id, "--json", env=env).stdout)
    names = [t["name"] for t in show(conv_id)["turns"]]
    assert done["changed"] == [names[0]] and done["deleted"] == []
    assert contents(conv_id) == [("user", "show me the markers"), ("assistant", tricky)]
    assert turn_at(store_path, "HEAD", conv_id, names[1]).edited is None


BREAKS = {
    # what the editor does -> (how to find the broken line in the kept file, what the error says)
    "malformed marker": ("text = text.replace('<!-- conv turn 2 ', '<!-- conv turn two ')",
                         "<!-- conv turn two ", "malformed turn marker"),
    "renumbered marker": ("text = text.replace('<!-- conv turn 2 · assistant', '<!-- conv turn 3 · assistant')",
                          "<!-- conv turn 3 · assistant", "marker says turn 3 · assistant"),
    "text above the title": ("text = text.replace('title: ', 'oops\\ntitle: ')", "oops", "text before the title line"),
}


@pytest.mark.parametrize("how", list(BREAKS))
def test_edit_that_breaks_the_transcript_is_refused_with_its_line(fake, store_path, tmp_path, conv_home, how):
    change, broken, says = BREAKS[how]
    fake.set(reply="ECHO")
    conv_id = ask("first question")["conversation"]
    ok("ask", "-c", "second question")
    before = head(store_path)
    env = editor(tmp_path, change + "\ntext = text.replace('second question', 'changed question')\n"
                                    "path.write_text(text)\n")
    line = fails("edit", conv_id, env=env, code=2)
    kept = conv_home / "cache" / "edit" / f"{conv_id}.md"
    assert kept.exists() and str(kept) in line and "Nothing was changed" in line
    lines = kept.read_text().split("\n")
    number = next(n for n, text in enumerate(lines, 1) if text.startswith(broken))
    assert f"transcript line {number}: {says}" in line
    if how == "malformed marker":  # 11 header lines, title, blank, turn 1's block (3 lines): line 17
        assert number == 17
    assert "changed question" in kept.read_text()  # the user's text is all there
    assert head(store_path) == before
    assert contents(conv_id)[2] == ("user", "second question")


def test_edit_that_changes_nothing_commits_nothing(fake, store_path, tmp_path, conv_home):
    fake.set(reply="ECHO")
    conv_id = ask("untouched")["conversation"]
    before = head(store_path)
    rewrite = editor(tmp_path, "path.write_text(text)\n")  # saved as it was
    done = run_conv("edit", conv_id, env=rewrite)
    assert done.returncode == 0 and "nothing changed" in done.stderr.decode()
    assert json.loads(ok("edit", conv_id, "--json", env=rewrite).stdout) == {
        "conversation": conv_id, "changed": [], "deleted": [], "title": None, "commit": None}
    ok("edit", conv_id, env={"EDITOR": "true"})
    assert head(store_path) == before
    assert not (conv_home / "cache" / "edit" / f"{conv_id}.md").exists()


def test_edit_with_a_failing_editor_writes_nothing(fake, store_path, tmp_path, conv_home):
    fake.set(reply="ECHO")
    conv_id = ask("keep me")["conversation"]
    before = head(store_path)
    env = editor(tmp_path, "path.write_text(text.replace('keep me', 'lost'))\nsys.exit(1)\n")
    line = fails("edit", conv_id, env=env, code=2)
    assert "the editor exited with 1" in line and "nothing was changed" in line
    kept = conv_home / "cache" / "edit" / f"{conv_id}.md"
    assert str(kept) in line and "lost" in kept.read_text()
    assert head(store_path) == before
    assert contents(conv_id) == [("user", "keep me"), ("assistant", "keep me")]
    missing = fails("edit", conv_id, env={"EDITOR": str(tmp_path / "no-such-editor")}, code=2)
    assert "not found" in missing
    assert head(store_path) == before
    latin1 = editor(tmp_path, "path.write_bytes(text.replace('keep me', 'caf\\xe9').encode('latin-1'))\n", "latin1.py")
    line = fails("edit", conv_id, env=latin1, code=2)
    assert "the edited text is not UTF-8 (byte 0x" in line and f"your text is kept in {kept}" in line
    assert b"caf\xe9" in kept.read_bytes() and head(store_path) == before


def test_a_fork_at_a_question_is_answered_by_a_bare_c_and_never_sent_twice_silently(fake, store_path):
    """Issue 13, defect 4: fork at turn 1 (a question), then `conv ask -c`
    with no text answers that question; a follow-up with text says the
    question goes along unanswered."""
    fake.set(reply="Rebase replays commits.")
    parent = json.loads(ok("ask", "--json", "explain git rebase").stdout)["conversation"]
    fork = json.loads(ok("fork", parent, "--at", "1", "--json").stdout)["id"]
    fake.set(reply="Answered now.")
    done = ok("ask", "-c")
    assert done.stdout.decode().strip() == "Answered now."
    assert [(m["role"], m["content"]) for m in fake.requests[-1]["messages"]] == [("user", "explain git rebase")]
    turns = json.loads(ok("show", fork, "--json").stdout)["turns"]
    assert [(t["role"], t["content"]) for t in turns] == [("user", "explain git rebase"),
                                                          ("assistant", "Answered now.")]

    second = json.loads(ok("fork", fork, "--at", "1", "--json").stdout)["id"]
    done = ok("ask", "-c", "and interactive mode?")
    assert (f"{second[:6]}'s last question has no answer: it goes along, unanswered, before this one"
            in done.stderr.decode())
    assert [m["role"] for m in fake.requests[-1]["messages"]] == ["user", "user"]
    assert "nothing to ask" in fails("ask", "--new")
    git(store_path, "fsck", "--strict")
