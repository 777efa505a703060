"""Serialising writers to the store, and surviving writers that died.

dulwich's ref locks are O_EXCL ``.lock`` files that fail at once instead of
waiting, and a process killed between creating and renaming one leaves it
behind, blocking every later write. So every conv writer first takes an
flock on ``<store>/conv.lock`` (released by the kernel when a process dies):
whoever holds it knows any ref ``.lock`` it finds is a dead writer's
leftover and removes it. Signals that would end the process are held back
while the ref itself is written, so Ctrl-C cannot leave a lock either.

The git CLI (``conv git``, a user's own git, git fetch run by a sync) takes
the same kind of locks without conv's flock: a ``.lock`` that some live
process has open (read from /proc on Linux; elsewhere, one younger than
STALE_AFTER) is that process's, and is named in an error instead of removed.
"""

import fcntl
import os
import signal
import threading
import time
from contextlib import contextmanager

from ...errors import StoreError

TYPE_CHECKING = False  # typing's, without importing typing: PEP 781's idiom

if TYPE_CHECKING:
    from pathlib import Path

_HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
_held = threading.local()  # stores whose writer lock this thread holds, and how deep
STALE_AFTER = 60  # seconds: without /proc, a lock this old is a dead writer's


@contextmanager
def writer_lock(store: "str | Path"):
    """Exclusive access for one read-modify-write of the store; gives the lock
    file's descriptor (quarantine.py keeps one byte of state in it).
    Re-entrant within a thread: a sync holds it across filtering and
    merging, and the writes it makes meanwhile take it again (a second flock
    would wait for the first for ever)."""
    held = getattr(_held, "stores", None)
    if held is None:
        held = _held.stores = {}
    key = os.path.realpath(store)
    if key in held:
        fd, depth = held[key]
        held[key] = (fd, depth + 1)
        try:
            yield fd
        finally:
            held[key] = (fd, depth)
        return
    fd = os.open(os.path.join(store, "conv.lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        held[key] = (fd, 1)
        yield fd
    finally:
        held.pop(key, None)
        os.close(fd)  # closing releases the flock


@contextmanager
def transfer_lock(store: "str | Path", exclusive: bool):
    """Fetches hold it shared while git writes objects no ref reaches yet;
    pruning unreachable objects at once (after a purge) holds it exclusive,
    so it never deletes what a fetch is about to point a ref at."""
    fd = os.open(os.path.join(store, "conv-transfer.lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)


def clear_stale_ref_locks(store: "str | Path", ref: str) -> None:
    """Remove the ``.lock`` files of writers that died (call with the flock held)."""
    for path in (os.path.join(store, f"{ref}.lock"), os.path.join(store, "packed-refs.lock")):
        clear_stale(path)


def clear_stale(lock: "str | Path") -> None:
    """Remove ``lock`` when no living process holds it (call with the flock
    held); one that a process still holds is named in a one-line error."""
    try:
        age = time.time() - os.lstat(lock).st_mtime
    except FileNotFoundError:
        return
    holder = _holder(lock)
    if holder or (holder is None and age < STALE_AFTER):
        who = f" ({holder})" if holder else f" (made {age:.0f} s ago)"
        raise StoreError(f"{lock} is held by a running process{who}",
                         "Let it finish and run the command again; if it hangs, end that process")
    try:
        os.unlink(lock)
    except FileNotFoundError:
        pass


def _holder(path: "str | Path") -> str | None:
    """"pid N (name)" of a process that has ``path`` open, "" when none does,
    None when that cannot be known here (no /proc)."""
    if not os.path.isdir("/proc/self/fd"):
        return None
    target = os.path.realpath(path)
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:  # gone, or another user's
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    with open(f"/proc/{pid}/comm") as comm:
                        name = comm.read().strip()
                    return f"pid {pid}, {name}"
            except OSError:
                continue
    return ""


@contextmanager
def signals_held():
    """Defer SIGINT/TERM/HUP until the block is done; they are delivered after."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
