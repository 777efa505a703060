"""Lock files that killed processes leave in the store, beyond the branch's own
(test_crash.py): ``config.lock`` (conv remote add), ``packed-refs.lock``
(conv gc) and a remote-tracking ref's lock (conv sync). A lock no living
process holds is removed and the command succeeds; one that a live process
has open is left alone, and the command fails in one line naming it."""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import fails, git, ok


@pytest.fixture
def origin(tmp_path) -> Path:
    path = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    return path


def setup_config(store: Path, origin: Path) -> None:
    """Nothing to do first: conv remote add writes the config."""


def setup_gc(store: Path, origin: Path) -> None:
    ok("gc")


def setup_sync(store: Path, origin: Path) -> None:
    ok("remote", "add", "origin", str(origin))
    ok("sync")
    ok("sync")  # the first pushed to the empty remote; this one fetched: the tracking ref exists
    assert (store / "refs/remotes/origin/main").exists()


CASES = {
    # lock: (set up before the lock appears, the command it blocked, what shows the command worked)
    "config.lock": (setup_config, ["remote", "add", "origin"],
                    lambda store, origin: (git(store, "config", "remote.origin.url", check=False).strip()
                                           == str(origin))),
    "packed-refs.lock": (setup_gc, ["gc"],
                         lambda store, origin: list((store / "objects").glob("??/*")) == []),
    "refs/remotes/origin/main.lock": (setup_sync, ["sync"],
                                      lambda store, origin: (git(origin, "rev-parse", "main")
                                                             == git(store, "rev-parse", "HEAD"))),
}


def command(args: list[str], origin: Path) -> list[str]:
    return args + [str(origin)] if args[0] == "remote" else args


def start(fake, store: Path, origin: Path, lock: str) -> Path:
    fake.set(reply="ECHO")
    ok("ask", "first")
    CASES[lock][0](store, origin)
    ok("ask", "second")  # something new to pack or to push
    return store / lock


@pytest.mark.parametrize("lock", CASES)
def test_a_lock_left_by_a_dead_process_is_removed(fake, store_path, origin, lock):
    path = start(fake, store_path, origin, lock)
    path.write_bytes(b"")  # as a process killed between creating and renaming it leaves it
    ok(*command(CASES[lock][1], origin))
    assert not path.exists()
    assert CASES[lock][2](store_path, origin)
    git(store_path, "fsck", "--strict")


@pytest.mark.parametrize("lock", CASES)
def test_a_lock_a_live_process_holds_is_named_and_left_alone(fake, store_path, origin, lock):
    path = start(fake, store_path, origin, lock)
    head = git(store_path, "rev-parse", "HEAD")
    config = (store_path / "config").read_bytes()
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nf = open(sys.argv[1], 'ab')\n"
                               "print('holding', flush=True)\ntime.sleep(120)\n", str(path)],
                              stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"holding\n"
        line = fails(*command(CASES[lock][1], origin), code=1)
        assert line.startswith(f"conv: error: {path} is held by a running process (pid {holder.pid}, python"), line
        assert "network" not in line and "reachable" not in line
        assert path.exists()
        assert git(store_path, "rev-parse", "HEAD") == head and (store_path / "config").read_bytes() == config
        assert not CASES[lock][2](store_path, origin)
    finally:
        holder.kill()
        holder.wait()
    ok(*command(CASES[lock][1], origin))  # once it has gone, its lock is a dead one's
    assert not path.exists() and CASES[lock][2](store_path, origin)

