"""Many conv processes writing one conversation at once.

One conversation, then WORKERS concurrent streams of PER_WORKER sequential
``conv ask --cid ID`` processes each (real OS processes, 8 alive at any time)
against one in-process fake that echoes the question. The run happens once
per module (``swarm``); each test below checks one invariant of the result,
read back through the real git CLI wherever possible.
"""

import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import fsck_clean, git
from fakeserver import FakeServer

from conv.format.ids import conversation_path

WORKERS = 8
PER_WORKER = 12  # 96 follow-ups: enough to interleave (test_writes_really_interleaved), half the minute
EXCHANGES = WORKERS * PER_WORKER  # follow-ups; plus the "start" exchange
QUESTION_RE = re.compile(r"^p(\d+)-(\d+)$")


def conv(env: dict, *args, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "conv", *args],
        stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=timeout,
    )


def frontmatter(text: str) -> tuple[dict, str]:
    """Minimal reader for conv's turn files: flat ``key: value`` frontmatter + body."""
    assert text.startswith("---\n"), text[:80]
    head, sep, body = text[4:].partition("\n---\n")
    assert sep, f"frontmatter not closed: {text[:200]!r}"
    meta = {}
    for line in head.splitlines():
        key, _, value = line.partition(":")
        if line[:1] not in (" ", "") and value:
            meta[key.strip()] = value.strip().strip("'\"")
    return meta, body[:-1] if body.endswith("\n") else body


@dataclass
class Swarm:
    home: Path
    store: Path
    env: dict
    cid: str
    start: dict
    wall: float
    results: list = field(default_factory=list)  # (worker, n, returncode, stdout, stderr)
    turns: dict = field(default_factory=dict)  # turn name -> (meta, body), read with git show

    @property
    def conv_dir(self) -> str:
        return conversation_path(self.cid)


@pytest.fixture(scope="module")
def swarm(tmp_path_factory) -> Swarm:
    home = tmp_path_factory.mktemp("swarm") / "home"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "CONV_")) and k != "NO_COLOR"}
    with FakeServer(reply="ECHO") as fake:
        env |= {"CONV_HOME": str(home), "OPENAI_BASE_URL": fake.url}
        first = conv(env, "ask", "--json", "start")
        assert first.returncode == 0, first.stderr.decode()
        start = json.loads(first.stdout)
        cid = start["conversation"]

        def worker(w: int) -> list:
            out = []
            for n in range(PER_WORKER):
                done = conv(env, "ask", "--json", "--cid", cid, f"p{w}-{n}")
                out.append((w, n, done.returncode, done.stdout.decode(), done.stderr.decode()))
            return out

        began = time.monotonic()
        with ThreadPoolExecutor(WORKERS) as pool:
            results = [r for rs in pool.map(worker, range(WORKERS)) for r in rs]
        wall = time.monotonic() - began
    print(f"\n[concurrency] {EXCHANGES} follow-ups by {WORKERS} concurrent streams: {wall:.1f} s wall")
    s = Swarm(home, home / "store.git", env, cid, start, wall, results)
    for path in git(s.store, "ls-tree", "-r", "--name-only", "HEAD").split("\n"):
        if path.startswith(s.conv_dir + "/") and not path.endswith("/conversation.md"):
            name = path.rsplit("/", 1)[1][:-3]
            s.turns[name] = frontmatter(git(s.store, "show", f"HEAD:{path}"))
    return s


def by_role(s: Swarm, role: str) -> dict:
    return {name: t for name, t in s.turns.items() if t[0].get("role") == role}


def test_every_cli_call_succeeded_and_echoed_its_question(swarm):
    failed = [(w, n, rc, err[-300:]) for w, n, rc, out, err in swarm.results if rc != 0]
    assert not failed, f"{len(failed)} of {EXCHANGES} asks failed, e.g. {failed[:3]}"
    for w, n, rc, out, err in swarm.results:
        reply = json.loads(out)
        assert reply["conversation"] == swarm.cid
        assert reply["answer"] == f"p{w}-{n}"
        assert reply["finish"] == "stop"
        assert reply["question_turn"] and reply["answer_turn"]


def test_all_exchanges_are_in_git(swarm):
    users, answers = by_role(swarm, "user"), by_role(swarm, "assistant")
    assert len(users) == EXCHANGES + 1
    assert len(answers) == EXCHANGES + 1
    assert len(swarm.turns) == 2 * (EXCHANGES + 1)  # no stray roles
    contents = sorted(body for meta, body in users.values())
    expected = sorted(["start"] + [f"p{w}-{n}" for w in range(WORKERS) for n in range(PER_WORKER)])
    assert contents == expected  # each question exactly once
    # and exactly the turns the CLI reported having written
    reported = {json.loads(out)[k] for *_, rc, out, err in swarm.results if rc == 0
                for k in ("question_turn", "answer_turn")}
    assert reported <= set(swarm.turns)


def test_every_answer_answers_its_own_question(swarm):
    users = by_role(swarm, "user")
    answered = set()
    for name, (meta, body) in by_role(swarm, "assistant").items():
        parent = meta.get("parent")
        assert parent in users, f"answer {name} has parent {parent!r}, not a question"
        assert body == users[parent][1], f"answer {name} says {body!r} to {users[parent][1]!r}"
        assert meta.get("finish") == "stop"
        assert name > parent  # answered after it was asked
        answered.add(parent)
    assert answered == set(users)  # one answer each, none twice


def test_no_turn_has_a_dangling_parent(swarm):
    for name, (meta, body) in swarm.turns.items():
        parent = meta.get("parent")
        if parent not in (None, "", "null"):
            assert parent in swarm.turns, f"{name}: parent {parent} is not in the conversation"


def test_each_process_questions_keep_their_order(swarm):
    asked: dict[int, list[int]] = {}
    for name in sorted(by_role(swarm, "user")):  # turn names sort by time
        m = QUESTION_RE.match(swarm.turns[name][1])
        if m:
            asked.setdefault(int(m[1]), []).append(int(m[2]))
    assert sorted(asked) == list(range(WORKERS))
    for w, ns in asked.items():
        assert ns == list(range(PER_WORKER)), f"process {w} questions out of order: {ns}"


def test_writes_really_interleaved(swarm):
    """Guard for the test itself: the workers overlapped, so the invariants
    above were checked under contention, not on a serial history."""
    order = [QUESTION_RE.match(swarm.turns[n][1]) for n in sorted(by_role(swarm, "user"))]
    workers = [int(m[1]) for m in order if m]
    switches = sum(a != b for a, b in zip(workers, workers[1:]))
    assert switches >= EXCHANGES // 4


def test_git_fsck_strict_is_clean(swarm):
    fsck_clean(swarm.store)
    assert not (swarm.store / "refs/heads/main.lock").exists()


def test_one_commit_per_write(swarm):
    assert int(git(swarm.store, "rev-list", "--count", "HEAD")) == 1 + 2 * (EXCHANGES + 1)
    # a straight line: every commit has at most one parent, and only the root none
    parents = git(swarm.store, "rev-list", "--parents", "HEAD").splitlines()
    assert sum(len(line.split()) == 1 for line in parents) == 1
    assert all(len(line.split()) <= 2 for line in parents)
    subjects = git(swarm.store, "log", "--format=%s", "HEAD").splitlines()
    assert sum(s == f"{swarm.cid}: ask" for s in subjects) == EXCHANGES + 1
    assert sum(s.startswith(f"{swarm.cid}: answer (") for s in subjects) == EXCHANGES + 1


def test_conv_show_lists_every_turn_in_transcript_order(swarm):
    done = conv(swarm.env, "show", swarm.cid, "--json")
    assert done.returncode == 0, done.stderr.decode()
    shown = json.loads(done.stdout)
    assert shown["turn_count"] == 2 * (EXCHANGES + 1)
    turns = shown["turns"]
    assert len(turns) == 2 * (EXCHANGES + 1)
    assert {t["name"] for t in turns} == set(swarm.turns)
    # interleaved askers: every answer is shown right after its question
    for q, a in zip(turns[::2], turns[1::2]):
        assert (q["role"], a["role"]) == ("user", "assistant")
        assert a["parent"] == q["name"] and a["content"] == q["content"]


def test_conv_list_counts_every_turn(swarm):
    """The SQLite index, kept up to date by each writer, agrees with git."""
    done = conv(swarm.env, "list", "--json")
    assert done.returncode == 0, done.stderr.decode()
    [row] = json.loads(done.stdout)
    assert row["id"] == swarm.cid
    assert row["turns"] == 2 * (EXCHANGES + 1)
    assert row["updated"].replace("-", "").replace(":", "").replace("T", "-")[:19] \
        == max(swarm.turns)[:19]


def test_index_stays_right_when_another_exchange_lands_mid_answer(fake, store_path):
    """A answers slowly; B asks and is answered in between. A's answer commit
    then follows B's, and the index it records must count B's turns too."""
    with FakeServer(reply="ECHO") as fast:
        env = {**os.environ, "OPENAI_BASE_URL": fast.url}
        cid = json.loads(conv(env, "ask", "--json", "start").stdout)["conversation"]
        fake.set(mode="slow", reply="one two three four five six", chunk_delay=0.3)
        slow = subprocess.Popen([sys.executable, "-m", "conv", "ask", "--json", "--cid", cid, "A"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 20
            while not fake.requests and time.monotonic() < deadline:  # A's question is committed
                time.sleep(0.02)
            assert fake.requests, "A never reached the model"
            b = conv(env, "ask", "--json", "--cid", cid, "B")
            assert b.returncode == 0, b.stderr.decode()
            out, err = slow.communicate(timeout=30)
        finally:
            slow.kill()
    assert slow.returncode == 0, err.decode()
    assert json.loads(out)["answer"] == "one two three four five six"
    files = [p for p in git(store_path, "ls-tree", "-r", "--name-only", "HEAD").split()
             if p.startswith("conversations/") and not p.endswith("/conversation.md")]
    assert len(files) == 6  # start, A, B: a question and an answer each
    listed = conv(env, "list", "--json")
    assert listed.returncode == 0, listed.stderr.decode()
    [row] = json.loads(listed.stdout)
    assert row["turns"] == 6, f"conv list says {row['turns']} turns, git holds 6"
    shown = json.loads(conv(env, "show", cid, "--json").stdout)
    assert shown["turn_count"] == 6
