"""conv killed with SIGKILL mid-ask: nothing it committed is lost, nothing it
left behind (a ref ``.lock``, a half-done commit) blocks the next writer, and
the repository stays valid for the real git.

SIGKILL cannot be caught, so these are the cases conv's own signal handling
cannot cover; only the writer flock (released by the kernel) and the stale
ref-lock cleanup stand between a killed writer and a wedged store.
"""

import fcntl
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest
from conftest import fsck_clean, git, run_conv
from fakeserver import FakeServer

from conv.format.ids import conversation_path

ROUNDS = 20
MAX_KILL_DELAY = 0.6
CALIBRATIONS = 2
FOLLOW_UP_LIMIT = 5.0  # seconds a write after a kill may take: "at once", not a lock timeout

# Killed writers are processes of their own; the writes after them (each timed
# against FOLLOW_UP_LIMIT, the calibration included) are whole processes too,
# as a user's next command after a crash would be.
pytestmark = pytest.mark.conv_process("crash tests: every conv here is a process, killed or timed")


def ok(*args, **kw):
    done = run_conv(*args, **kw)
    assert done.returncode == 0, done.stderr.decode()
    return done


def ask_json(*args, **kw) -> dict:
    return json.loads(ok("ask", "--json", *args, **kw).stdout)


def turns_in_git(store, cid) -> dict[str, tuple[dict, str]]:
    """name -> (frontmatter, body) of every turn file at HEAD, via the git CLI."""
    where = conversation_path(cid) + "/"
    out = {}
    for path in git(store, "ls-tree", "-r", "--name-only", "HEAD").splitlines():
        if path.startswith(where) and not path.endswith("/conversation.md"):
            text = git(store, "show", f"HEAD:{path}")
            head, _, body = text[4:].partition("\n---\n")
            meta = {}
            for line in head.splitlines():
                key, sep, value = line.partition(":")
                if sep and not line.startswith(" "):
                    meta[key.strip()] = value.strip().strip("'\"")
            out[path[len(where):-3]] = (meta, body[:-1] if body.endswith("\n") else body)
    return out


def last_user_message(request: dict) -> str:
    users = [m for m in request.get("messages", []) if m.get("role") == "user"]
    return users[-1]["content"] if users else ""


def start_ask(cid: str, question: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "conv", "ask", "--cid", cid, question],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def kill(victim: subprocess.Popen) -> None:
    victim.send_signal(signal.SIGKILL)
    err = victim.communicate(timeout=10)[1]
    # it was still running when killed: not an early failure in disguise
    assert victim.returncode == -signal.SIGKILL, err.decode()


def test_sigkill_at_random_moments_loses_nothing_committed_and_blocks_nothing(fake, store_path):
    with FakeServer(reply="ECHO") as fast:
        fast_env = {"OPENAI_BASE_URL": fast.url}  # follow-ups never touch the slow fake
        cid = ask_json("start", env=fast_env)["conversation"]
        fake.set(mode="slow", chunk_delay=0.05)  # 100 words: a 5 s answer (or longer, below), always killed mid-stream

        # How long a process takes here to commit its question and reach the model
        # (interpreter start and imports dominate: ~0.2 s on an idle machine).
        latency = 0.0
        for n in range(CALIBRATIONS):
            seen, t0 = len(fake.requests), time.monotonic()
            victim = start_ask(cid, f"cal{n}")
            while len(fake.requests) == seen and time.monotonic() - t0 < 20:
                time.sleep(0.005)
            latency = max(latency, time.monotonic() - t0)
            kill(victim)
        # Kill anywhere from before the commit to well after it; stratified so a
        # seed cannot bunch the kills up before the commit.
        span = max(MAX_KILL_DELAY, 3 * latency)
        # Every victim must still be answering when its kill comes: the answer
        # (100 pieces) lasts at least twice the longest delay, slow machine or not.
        fake.set(chunk_delay=max(0.05, 2 * span / 100))
        rng = random.Random(20261121)
        delays = [(i + rng.random()) * span / ROUNDS for i in range(ROUNDS)]
        rng.shuffle(delays)

        locks_left, follow_up_times = 0, []
        began = time.monotonic()
        for n, delay in enumerate(delays):
            victim = start_ask(cid, f"q{n}")
            time.sleep(delay)
            kill(victim)
            locks_left += (store_path / "refs/heads/main.lock").exists()

            t0 = time.monotonic()
            done = run_conv("ask", "--json", "--cid", cid, f"after{n}", env=fast_env, timeout=30)
            follow_up_times.append(time.monotonic() - t0)
            assert done.returncode == 0, f"write after kill {n} ({delay:.3f} s) failed: {done.stderr.decode()}"
            assert follow_up_times[-1] < FOLLOW_UP_LIMIT, f"write after kill {n} took {follow_up_times[-1]:.1f} s"
            assert json.loads(done.stdout)["answer"] == f"after{n}"
            assert not (store_path / "refs/heads/main.lock").exists()
        wall = time.monotonic() - began
    reached_model = {last_user_message(r) for r in fake.requests}

    turns = turns_in_git(store_path, cid)
    users = {name: body for name, (meta, body) in turns.items() if meta["role"] == "user"}
    answers = {name: (meta, body) for name, (meta, body) in turns.items() if meta["role"] == "assistant"}
    asked = sorted(users.values())
    killed = {f"q{n}" for n in range(ROUNDS)} | {f"cal{n}" for n in range(CALIBRATIONS)}
    killed_in_store = killed & set(asked)
    rounds_in_store = {q for q in killed_in_store if q.startswith("q")}
    print(f"\n[crash] commit latency {latency:.3f} s, kills spread over {span:.2f} s; {ROUNDS} kills + "
          f"follow-ups in {wall:.1f} s; {len(rounds_in_store)} killed questions stored, "
          f"{len(reached_model & rounds_in_store)} reached the model, {locks_left} ref locks left behind; "
          f"slowest follow-up {max(follow_up_times):.2f} s")

    fsck_clean(store_path)
    # every question that reached the model was committed first, and survived its kill
    assert reached_model <= killed_in_store, f"asked the model but lost: {reached_model - killed_in_store}"
    assert {f"cal{n}" for n in range(CALIBRATIONS)} <= killed_in_store
    assert len(rounds_in_store) >= ROUNDS // 2, f"only {sorted(rounds_in_store)} of the killed questions stored"
    # each killed question at most once, never a torn or doubled write
    assert len(asked) == len(set(asked)) == 1 + ROUNDS + len(killed_in_store)
    # every follow-up and its answer, in place; the killed ones got no answer at all
    by_parent = {meta["parent"]: body for meta, body in answers.values()}
    question_of = {body: name for name, body in users.items()}
    for n in range(ROUNDS):
        assert by_parent.get(question_of[f"after{n}"]) == f"after{n}"
    assert len(answers) == 1 + ROUNDS
    assert not any(question_of[q] in by_parent for q in killed_in_store)
    # one commit per completed write: creation, 21 exchanges, the stored killed questions
    assert int(git(store_path, "rev-list", "--count", "HEAD")) == 1 + 2 * (1 + ROUNDS) + len(killed_in_store)
    # conv itself reads back exactly what git holds
    shown = json.loads(ok("show", cid, "--json").stdout)
    assert sorted(t["name"] for t in shown["turns"]) == sorted(turns)
    assert {t["name"] for t in shown["turns"] if t["role"] == "user"} == set(users)
    [row] = json.loads(ok("list", "--json").stdout)
    assert row["turns"] == len(turns)


# A writer killed at an exact point of its commit. The wrapper patches conv's
# write path in its own process only, then runs ``python -m conv``.
KILL_AT = r"""
import os, runpy, signal, sys
from contextlib import contextmanager

def die():
    os.kill(os.getpid(), signal.SIGKILL)

point = os.environ["KILL_AT_POINT"]
if point == "objects-written":  # blobs, trees and the commit stored; ref not touched
    import conv.store.repo.disk as d
    @contextmanager
    def held():
        die()
        yield
    d.signals_held = held
elif point == "ref-lock-written":  # refs/heads/main.lock holds the new commit, not renamed
    import conv.store.repo.refs as refs
    class Os:  # the os module, but its rename of the branch's lock kills the process
        def __getattr__(self, name):
            return getattr(os, name)
        def replace(self, source, target):
            if os.fsdecode(target).endswith(os.path.join("refs", "heads", "main")):
                die()
            return os.replace(source, target)
    refs.os = Os()
elif point == "ref-moved":  # the commit is in; the index and session never heard of it
    import conv.store.repo.disk as d
    real_swap = d.swap_ref
    def swap_ref(*args):
        moved = real_swap(*args)
        die()
        return moved
    d.swap_ref = swap_ref
else:
    raise SystemExit(f"unknown kill point {point}")
sys.argv = ["conv", *sys.argv[1:]]
runpy.run_module("conv", run_name="__main__", alter_sys=True)
"""


def killed_at(point: str, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", KILL_AT, *args], stdin=subprocess.DEVNULL,
                          capture_output=True, env={**os.environ, "KILL_AT_POINT": point}, timeout=60)


@pytest.mark.parametrize("point,kept", [
    ("objects-written", False), ("ref-lock-written", False), ("ref-moved", True),
])
def test_sigkill_inside_the_question_commit(fake, store_path, point, kept):
    fake.set(reply="ECHO")
    cid = ask_json("start")["conversation"]
    head = git(store_path, "rev-parse", "HEAD").strip()

    victim = killed_at(point, "ask", "--cid", cid, "killed")
    assert victim.returncode == -signal.SIGKILL, victim.stderr.decode()
    lock = store_path / "refs/heads/main.lock"
    assert lock.exists() == (point == "ref-lock-written")  # the wrapper hit its mark
    assert (git(store_path, "rev-parse", "HEAD").strip() != head) == kept

    t0 = time.monotonic()
    after = ask_json("--cid", cid, "after")
    assert time.monotonic() - t0 < FOLLOW_UP_LIMIT
    assert after["answer"] == "after"
    assert not lock.exists()
    fsck_clean(store_path)

    turns = turns_in_git(store_path, cid)
    asked = sorted(body for meta, body in turns.values() if meta["role"] == "user")
    assert asked == (["after", "killed", "start"] if kept else ["after", "start"])
    assert int(git(store_path, "rev-list", "--count", "HEAD")) == 1 + 4 + kept
    # conv's own reading (through its index) agrees with git
    shown = json.loads(ok("show", cid, "--json").stdout)
    assert sorted(t["name"] for t in shown["turns"]) == sorted(turns)
    [row] = json.loads(ok("list", "--json").stdout)
    assert row["turns"] == len(turns)
    # the model saw the surviving question as history, and never a lost one
    sent = [m["content"] for m in fake.requests[-1]["messages"]]
    assert sent == (["start", "start", "killed", "after"] if kept else ["start", "start", "after"])


@pytest.mark.parametrize("content", [b"", b"0123456789abcdef0123456789abcdef01234567\n"])
@pytest.mark.parametrize("lockfile", ["refs/heads/main.lock", "packed-refs.lock"])
def test_ref_lock_of_a_dead_writer_is_removed(fake, store_path, lockfile, content):
    """As a writer (conv's, git's or dulwich's) killed between creating and renaming its lock leaves it."""
    fake.set(reply="ECHO")
    cid = ask_json("start")["conversation"]
    head = git(store_path, "rev-parse", "HEAD").strip()
    (store_path / lockfile).write_bytes(content)

    t0 = time.monotonic()
    after = ask_json("--cid", cid, "after the dead writer")
    assert time.monotonic() - t0 < FOLLOW_UP_LIMIT
    assert after["answer"] == "after the dead writer"
    assert not (store_path / lockfile).exists()
    # the branch moved on from the real head, never to the lock's content
    assert git(store_path, "rev-parse", "HEAD~2").strip() == head
    fsck_clean(store_path)


def test_sigkilled_lock_holder_releases_the_store(fake, store_path):
    """A process killed while holding the writer flock and a ref lock."""
    fake.set(reply="ECHO")
    cid = ask_json("start")["conversation"]
    holder = subprocess.run([sys.executable, "-c", (
        "import fcntl, os, signal, sys\n"
        "store = sys.argv[1]\n"
        "fd = os.open(os.path.join(store, 'conv.lock'), os.O_RDWR | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "open(os.path.join(store, 'refs', 'heads', 'main.lock'), 'x').close()\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"), str(store_path)], timeout=30)
    assert holder.returncode == -signal.SIGKILL
    assert (store_path / "refs/heads/main.lock").exists()
    done = run_conv("ask", "--json", "--cid", cid, "next", timeout=FOLLOW_UP_LIMIT)
    assert done.returncode == 0, done.stderr.decode()
    assert not (store_path / "refs/heads/main.lock").exists()
    assert int(git(store_path, "rev-list", "--count", "HEAD")) == 5


def test_a_live_writer_is_waited_for_not_cleared(fake, store_path):
    """The other side of stale-lock removal: while a writer is alive (holds the
    flock), its ref lock is not stale, and conv waits instead of writing."""
    fake.set(reply="ECHO")
    cid = ask_json("start")["conversation"]
    head = git(store_path, "rev-parse", "HEAD").strip()
    fd = os.open(store_path / "conv.lock", os.O_RDWR | os.O_CREAT)
    lock = store_path / "refs/heads/main.lock"
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        lock.write_bytes(head.encode() + b"\n")  # what a live writer mid-commit holds
        waiter = subprocess.Popen([sys.executable, "-m", "conv", "ask", "--json", "--cid", cid, "waiting"],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(1.5)
        assert waiter.poll() is None, waiter.communicate()[1].decode()  # blocked, not failed
        assert lock.exists()  # the live writer's lock is untouched
        assert git(store_path, "rev-parse", "HEAD").strip() == head
        lock.unlink()  # the live writer finishes…
    finally:
        os.close(fd)  # …and lets go
    out, err = waiter.communicate(timeout=FOLLOW_UP_LIMIT)
    assert waiter.returncode == 0, err.decode()
    assert json.loads(out)["answer"] == "waiting"
    assert git(store_path, "rev-parse", "HEAD~2").strip() == head


def test_sigkill_while_creating_the_store(fake, store_path, conv_home):
    """The very first ask killed mid-creation: the store is either absent or
    whole, and the next ask works."""
    fake.set(reply="ECHO")
    victim = killed_at("objects-written", "ask", "first")
    assert victim.returncode == -signal.SIGKILL, victim.stderr.decode()
    assert not (store_path / "HEAD").exists()  # built beside its place, never half there
    after = ask_json("second")
    assert after["answer"] == "second"
    fsck_clean(store_path)
    assert int(git(store_path, "rev-list", "--count", "HEAD")) == 3
