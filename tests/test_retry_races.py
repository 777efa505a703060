"""conv retry racing other writers, as real processes against the loopback
fake, which holds the retries' answers mid-stream (``hold_at``) until the
race is set up, however slow the machine. Afterwards the store is read with
the real git CLI: no turn's parent dangles, every answer a process received
is stored (text equal), each process said where its answer went, and
``git fsck --strict`` is clean."""

import json
import subprocess
import sys
import time

from conftest import conv_env, git, ok

from conv.format.ids import conversation_path
from conv.format.model import Conversation, Turn

RETRIES = 4


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "conv", *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=conv_env())


def finish(proc: subprocess.Popen) -> tuple[int, dict, str]:
    out, err = proc.communicate(timeout=120)
    return proc.returncode, json.loads(out) if proc.returncode == 0 else {}, err.decode()


def wait_for(condition, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def stored(store) -> dict[str, tuple[Conversation, dict[str, Turn]]]:
    """Every live conversation on main, read with git: id -> (metadata, name -> turn)."""
    out: dict = {}
    for path in git(store, "ls-tree", "-r", "--name-only", "main", "conversations").split():
        conv_id, name = path.split("/")[-2:]
        text = git(store, "show", f"main:{path}")
        meta, turns = out.setdefault(conv_id, [None, {}])
        if name == "conversation.md":
            out[conv_id][0] = Conversation.from_text(text)
        else:
            turns[name[:-3]] = Turn.from_text(name[:-3], text)
    return {conv_id: (meta, turns) for conv_id, (meta, turns) in out.items()}


def blob(store, conv_id: str, name: str) -> str:
    return git(store, "rev-parse", f"main:{conversation_path(conv_id)}/{name}.md").strip()


def assert_sound(store, received: list[str]) -> dict:
    """No dangling parent anywhere, every received answer stored, fsck clean."""
    convs = stored(store)
    for conv_id, (_, turns) in convs.items():
        for turn in turns.values():
            assert turn.parent is None or turn.parent in turns, (
                f"{conv_id}/{turn.name}: parent {turn.parent} is missing")
    answers = [t.content for _, turns in convs.values() for t in turns.values() if t.role == "assistant"]
    for text in received:
        assert text in answers, f"received but not stored: {text!r}"
    done = subprocess.run(["git", "-C", str(store), "fsck", "--strict", "--no-dangling"],
                          capture_output=True, text=True)
    assert done.returncode == 0 and not done.stdout.strip() and not done.stderr.strip(), done.stdout + done.stderr
    return convs


def first_exchange(fake) -> tuple[str, str, str]:
    """A conversation of one question and its answer: (id, question turn, answer turn)."""
    fake.set(reply="Rebase replays commits.")
    done = json.loads(ok("ask", "--json", "explain git rebase").stdout)
    return done["conversation"], done["question_turn"], done["answer_turn"]


def test_a_retry_that_finishes_after_a_follow_up_keeps_its_answer_in_a_fork(fake, store_path):
    conv_id, question, old = first_exchange(fake)
    retried = "Rebase moves your commits onto a new base, one by one."
    fake.set(reply=retried, chunk_delay=0.05, hold_at=3)
    retry = start("retry", conv_id, "--json")
    wait_for(lambda: fake.held == 1, "the retry to stream its first words")
    base = git(store_path, "rev-parse", "main").strip()

    # while the retry is still streaming, another terminal follows up on the old answer
    fake.set(reply="Merge joins histories.", chunk_delay=0, hold_at=None)
    follow = json.loads(ok("ask", "--cid", conv_id, "--json", "and merge?").stdout)
    assert retry.poll() is None  # the race really happened: the retry had not finished
    fake.release()
    code, result, err = finish(retry)

    assert code == 0, err
    convs = assert_sound(store_path, [retried, "Rebase replays commits.", "Merge joins histories."])
    fork_id = result["conversation"]
    assert result["answer"] == retried and result["forked_from"] == conv_id and fork_id != conv_id
    assert err.count("\n") == 1 and err.startswith(f"conv: {conv_id[:6]} moved on while this answer arrived: "
                                                   "it is kept in ")
    assert f"conv show {fork_id[:6]}" in err
    # the conversation that moved on is untouched: the follow-up still follows the old answer
    _, turns = convs[conv_id]
    assert turns[old].content == "Rebase replays commits." and turns[follow["question_turn"]].parent == old
    assert sorted(turns) == sorted([question, old, follow["question_turn"], follow["answer_turn"]])
    # the fork: the question (the same blob) and the retry's answer
    meta, forked = convs[fork_id]
    assert meta.forked_from == {"conversation": conv_id, "turn": question, "commit": base}
    assert sorted(forked) == sorted([question, result["answer_turn"]])
    assert blob(store_path, fork_id, question) == blob(store_path, conv_id, question)
    answer = forked[result["answer_turn"]]
    assert (answer.content == retried and answer.parent == question and answer.replaces == old
            and answer.finish == "stop")
    assert git(store_path, "log", "-1", "--format=%s", "main").startswith(
        f"{fork_id}: fork of {conv_id} at turn 1 with a retry's answer")
    # conv itself agrees with git
    shown = json.loads(ok("show", fork_id, "--json").stdout)
    assert [t["content"] for t in shown["turns"]] == ["explain git rebase", retried]


def test_concurrent_retries_of_one_answer_all_keep_their_answers(fake, store_path):
    conv_id, question, old = first_exchange(fake)
    fake.set(reply="ECHO", hold_at=2)  # each retry's hint comes back as its answer: distinct texts
    procs = [start("retry", conv_id, "--hint", f"take {n}", "--json") for n in range(RETRIES)]
    wait_for(lambda: fake.held == RETRIES, "every retry to be streaming")
    # every retry read the same conversation: each was shown the old answer
    assert all(r["messages"][-2]["content"] == "Rebase replays commits." for r in fake.requests[-RETRIES:])
    fake.release()
    results = [finish(proc) for proc in procs]

    assert [code for code, _, _ in results] == [0] * RETRIES, [err for _, _, err in results]
    received = [result["answer"] for _, result, _ in results]
    assert sorted(received) == sorted(f"That answer was wrong: take {n}. Please answer again." for n in range(RETRIES))
    winners = [(result, err) for _, result, err in results if result["forked_from"] is None]
    losers = [(result, err) for _, result, err in results if result["forked_from"] is not None]
    assert len(winners) == 1 and len(losers) == RETRIES - 1
    assert winners[0][0]["conversation"] == conv_id and winners[0][1] == ""
    for result, err in losers:
        assert result["forked_from"] == conv_id and result["conversation"] != conv_id
        assert err.count("\n") == 1 and f"it is kept in {result['conversation'][:6]}" in err

    convs = assert_sound(store_path, received)
    assert len(convs) == RETRIES  # the conversation and a fork for each retry that lost the race
    _, turns = convs[conv_id]
    assert sorted(turns) == sorted([question, winners[0][0]["answer_turn"]])  # the winner took the old one's place
    assert turns[winners[0][0]["answer_turn"]].replaces == old
    for result, _ in losers:
        meta, forked = convs[result["conversation"]]
        assert meta.forked_from["conversation"] == conv_id and meta.forked_from["turn"] == question
        assert sorted(forked) == sorted([question, result["answer_turn"]])
        assert forked[result["answer_turn"]].content == result["answer"]
        assert blob(store_path, result["conversation"], question) == blob(store_path, conv_id, question)
    # the old answer stays in history
    assert "Rebase replays commits." in git(store_path, "log", "-p", "main", "--", conversation_path(conv_id))


def test_a_retry_of_a_conversation_deleted_meanwhile_keeps_its_answer_in_a_fork(fake, store_path):
    conv_id, question, old = first_exchange(fake)
    fake.set(reply="Kept anyway.", hold_at=1)
    retry = start("retry", conv_id, "--json")
    wait_for(lambda: fake.held == 1, "the retry to stream")
    ok("delete", conv_id)
    fake.release()
    code, result, err = finish(retry)

    assert code == 0 and result["forked_from"] == conv_id and f"it is kept in {result['conversation'][:6]}" in err
    convs = assert_sound(store_path, ["Kept anyway."])
    assert list(convs) == [result["conversation"]]  # the deleted one stays in the trash
    assert sorted(convs[result["conversation"]][1]) == sorted([question, result["answer_turn"]])
    # the deleted conversation waits in the trash as it was, old answer and all
    assert git(store_path, "ls-tree", "--name-only",
               f"main:trash/{conversation_path(conv_id).split('/', 1)[1]}").split() \
        == sorted(["conversation.md", f"{question}.md", f"{old}.md"])


def test_a_retry_never_brings_back_a_conversation_purged_meanwhile(fake, store_path):
    fake.set(reply="Purge me: the secret plan.")
    conv_id = json.loads(ok("ask", "--json", "the secret plan").stdout)["conversation"]
    fake.set(reply="Another secret plan answer.", hold_at=1)
    retry = start("retry", conv_id, "--json")
    wait_for(lambda: fake.held == 1, "the retry to stream")
    ok("delete", conv_id)
    ok("clean", "--purge", "--yes")
    fake.release()
    code, _, err = finish(retry)

    assert code == 1 and err == (f"conv: error: conversation {conv_id} was purged from the store meanwhile. "
                                 "Nothing was kept\n")
    everything = subprocess.run(["git", "-C", str(store_path), "cat-file", "--batch-all-objects", "--batch"],
                                capture_output=True).stdout
    assert b"secret plan" not in everything
    assert_sound(store_path, [])
    assert stored(store_path) == {}
