"""Where a repository's objects and refs live: a bare repository on disk.

This is the small interface ``GitStore`` builds commits on; nothing above
it knows whether the objects are files. tests/memory_storage.py is its
in-memory twin, and tests/test_store_behaviour.py runs the store's
behaviour on both:

- ``objects.read(sha)``: any object's (type, content), and ``objects.close()``;
- ``ref(name)``, ``swap(name, old, new)``: a ref read, and moved by compare-and-swap;
- ``writing()``: a block holding the writer lock that gives a batch, whose
  ``add(type, content)`` takes a new object and returns its id;
- ``keep(batch, message, added)``: the batch's objects into the store, once
  the pre-commit hook let them through (judged only when ``message`` is given);
- ``committed(message, commit)``: after a commit landed (the post-commit hook);
- ``read_many(shas)``: many blobs at once;
- ``git_dir``: where the git CLI may work on it (None: it may not).

What sync, purge and upkeep do (dulwich's refs and object store, the git
CLI's fetch, push and gc) works on ``path`` and exists only here.
"""

from contextlib import contextmanager

from ...errors import writing as translating_disk_errors
from .hooks import Hooks
from .lock import clear_stale_ref_locks, signals_held, writer_lock
from .objects import Objects
from .quarantine import Quarantine
from .refs import BRANCH, read_ref, swap_ref

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of every follow-up): PEP 781's idiom
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


class DiskStorage:
    """The objects and refs of the bare repository at ``path``: objects as git
    writes them (loose or packed), new ones through a quarantine, refs as
    files moved under conv's writer lock."""

    def __init__(self, path: "Path", hooks: Hooks | None = None):
        self.path = path
        self.git_dir = str(path)
        self.hooks = hooks or Hooks(path)
        self.objects = Objects(f"{path}/objects")

    def ref(self, name: str) -> str | None:
        return read_ref(self.git_dir, name)

    def swap(self, name: str, old: str | None, new: str) -> bool:
        """Point ``name`` at ``new`` if it points at ``old`` now (under the
        writer lock, taken again inside ``writing``); Ctrl-C waits until the
        ref is written."""
        with writer_lock(self.path):
            clear_stale_ref_locks(self.path, name)
            with signals_held():
                return swap_ref(self.git_dir, name, old, new)

    @contextmanager
    def writing(self) -> "Iterator[Quarantine]":
        """The writer lock held, ref locks left by dead writers cleared, new
        objects waiting in the quarantine (removed unless kept); a full disk
        or a read-only store becomes one DiskError."""
        with translating_disk_errors(self.path), writer_lock(self.path) as lock:
            clear_stale_ref_locks(self.path, BRANCH)
            batch = Quarantine(self.path, self.objects, lock)
            try:
                yield batch
            finally:
                batch.close()

    def keep(self, batch: Quarantine, message: str | None = None, added: str = "") -> None:
        batch.write()
        if message is not None:
            self.hooks.run("pre-commit", message, stdin=added, env=batch.env())
        batch.admit()

    def committed(self, message: str, commit: str) -> None:
        self.hooks.run("post-commit", message, args=[commit])

    def read_many(self, shas: list[str]) -> dict[str, bytes]:
        from .batch import read_blobs

        return read_blobs(self.path, shas)
