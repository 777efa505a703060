"""A disk that fills up while an answer streams: the question's commit went
in (there was room then), the answer's commit cannot. On a real small tmpfs
holding CONV_HOME: one line, nothing half-written in the store, and the
answer kept in the room reserved for it, committed by the next write."""

import errno
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import conv_env, fails, fsck_clean, git, ok, run_conv

from conv.format.ids import conversation_path
from conv.home import paths

ANSWER = " ".join(f"word{i}" for i in range(1, 151))  # streamed a word every 20 ms: 3 s


@pytest.fixture
def small_disk(tmp_path, monkeypatch):
    """A 4 MB tmpfs holding CONV_HOME."""
    disk = tmp_path / "disk"
    disk.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}); a full disk needs a small real one")
    monkeypatch.setenv("CONV_HOME", str(disk / "home"))
    paths._dirs.cache_clear()
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=True)


def fill(disk: Path) -> Path:
    """Write until the disk says ENOSPC, down to the last byte it takes."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for size in (1 << 20, 1 << 16, 1 << 12, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def turn_files(store: Path, cid: str) -> dict[str, str]:
    where = conversation_path(cid) + "/"
    return {p[len(where):]: git(store, "show", f"HEAD:{p}")
            for p in git(store, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
            if p.startswith(where) and not p.endswith("conversation.md")}


def assert_nothing_half_written(store: Path) -> None:
    fsck_clean(store)
    assert list((store / "objects").rglob("*.lock")) == []
    assert [p for p in (store / "quarantine").rglob("*") if p.is_file()] == []
    assert list((store / "refs").rglob("*.lock")) == []


def test_the_disk_fills_while_an_answer_streams_and_the_answer_is_kept(fake, small_disk):
    store = small_disk / "home" / "store.git"
    fake.set(reply="ECHO")
    cid = json.loads(ok("ask", "--json", "start").stdout)["conversation"]
    fake.set(reply=ANSWER, chunk_delay=0.02)
    asked = len(fake.requests)
    asker = subprocess.Popen([sys.executable, "-m", "conv", "ask", "--cid", cid, "the long one"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=conv_env())
    deadline = time.monotonic() + 30
    while len(fake.requests) == asked:  # the question is committed and the model called: now fill the disk
        assert asker.poll() is None and time.monotonic() < deadline, asker.communicate()[1].decode()
        time.sleep(0.01)
    filler = fill(small_disk)
    out, err = asker.communicate(timeout=60)

    # one line: what happened, where the answer is, what to do
    assert asker.returncode == 1, err.decode()
    [line] = err.decode().splitlines()
    assert line.startswith("conv: error: no space left on the disk holding ") and str(store) in line, line
    assert "the answer is kept in " in line and "Free some space" in line and "next conv command" in line, line
    assert out.decode().split() == ANSWER.split()  # the reader saw it all as it came
    kept = Path(line.split("the answer is kept in ")[1].split(". ")[0].split("; ")[0])
    assert kept.is_file() and kept.parent.parent.parent == store

    # the question went in, the answer did not, and nothing is half-written
    assert_nothing_half_written(store)
    questions = [t for t in turn_files(store, cid).values() if "role: user" in t]
    assert len(questions) == 2 and len(turn_files(store, cid)) == 3
    assert ANSWER in kept.read_text() and "finish: stop" in kept.read_text()

    # reading still works on the full disk (full again: the failed write gave back what it had used);
    # writing says the disk is full and keeps what it kept
    fill(small_disk)
    assert [c["turns"] for c in json.loads(ok("list", "--json").stdout)] == [3]
    head = git(store, "rev-parse", "HEAD")
    again = fails("ask", "--cid", cid, "while full", code=1)
    assert "no space left on the disk holding" in again
    assert git(store, "rev-parse", "HEAD") == head and kept.is_file()
    assert_nothing_half_written(store)

    # room again: the next write commits the kept answer first, and says so
    filler.unlink()
    fake.set(reply="ECHO", chunk_delay=0)
    done = run_conv("ask", "--json", "--cid", cid, "next")
    assert done.returncode == 0, done.stderr.decode()
    notice = done.stderr.decode()
    assert f"committed the answer to {cid} kept in {kept}" in notice, notice
    assert not kept.exists()
    files = turn_files(store, cid)
    assert len(files) == 6
    [kept_answer] = [name for name, text in files.items() if ANSWER in text]
    assert kept_answer == kept.name
    # the model was sent the kept answer as history, right after its question
    sent = [m["content"] for m in fake.requests[-1]["messages"]]
    assert sent == ["start", "start", "the long one", ANSWER, "next"]
    assert "kept from a failed write" in git(store, "log", "-1", "--format=%s", "HEAD~2")
    assert_nothing_half_written(store)


@pytest.mark.conv_process("a file conv left open in this process would keep the disk from being remounted")
def test_a_store_on_a_file_system_remounted_read_only(fake, small_disk):
    """The other way a disk refuses writes (EROFS), on the same real tmpfs."""
    store = small_disk / "home" / "store.git"
    fake.set(reply="ECHO")
    cid = json.loads(ok("ask", "--json", "how does rebase work?").stdout)["conversation"]
    head, sent = git(store, "rev-parse", "HEAD"), len(fake.requests)
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    try:
        line = fails("ask", "--cid", cid, "asked on a read-only disk", code=1)
        assert line.startswith(f"conv: error: {store} is on a read-only file system"), line
        assert len(fake.requests) == sent and git(store, "rev-parse", "HEAD") == head
        assert [c["id"] for c in json.loads(ok("list", "--json").stdout)] == [cid]
        assert "how does rebase work?" in ok("show", cid).stdout.decode()
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_disk)], check=True)
