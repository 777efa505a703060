"""Serialising writers to the store, and surviving writers that died.

dulwich's ref locks are O_EXCL ``.lock`` files that fail at once instead of
waiting, and a process killed between creating and renaming one leaves it
behind, blocking every later write. So every conv writer first takes an
flock on ``<store>/conv.lock`` (released by the kernel when a process dies):
whoever holds it knows any ref ``.lock`` it finds is a dead writer's
leftover and removes it. Signals that would end the process are held back
while the ref itself is written, so Ctrl-C cannot leave a lock either.
"""

import fcntl
import os
import signal
import threading
from contextlib import contextmanager
from pathlib import Path

_HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
_held = threading.local()  # stores whose writer lock this thread holds, and how deep


@contextmanager
def writer_lock(store: Path):
    """Exclusive access for one read-modify-write of the store. Re-entrant
    within a thread: a sync holds it across filtering and merging, and the
    writes it makes meanwhile take it again (a second flock would wait for
    the first for ever)."""
    depth = getattr(_held, "stores", None)
    if depth is None:
        depth = _held.stores = {}
    key = os.path.realpath(store)
    if depth.get(key):
        depth[key] += 1
        try:
            yield
        finally:
            depth[key] -= 1
        return
    fd = os.open(store / "conv.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        depth[key] = 1
        yield
    finally:
        depth.pop(key, None)
        os.close(fd)  # closing releases the flock


@contextmanager
def transfer_lock(store: Path, exclusive: bool):
    """Fetches hold it shared while git writes objects no ref reaches yet;
    pruning unreachable objects at once (after a purge) holds it exclusive,
    so it never deletes what a fetch is about to point a ref at."""
    fd = os.open(store / "conv-transfer.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)


def clear_stale_ref_locks(store: Path, ref: str) -> None:
    """Remove the ``.lock`` files of writers that died (call with the flock held)."""
    for path in (store / f"{ref}.lock", store / "packed-refs.lock"):
        try:
            path.unlink()
        except FileNotFoundError:
            pass


@contextmanager
def signals_held():
    """Defer SIGINT/TERM/HUP until the block is done; they are delivered after."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
