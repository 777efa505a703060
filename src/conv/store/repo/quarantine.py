"""A commit's new objects, kept apart until the commit is accepted (as git's
receive-pack does): written into ``quarantine/``, an object directory inside
the store (loose files, or one pack when there are many), shown to the
pre-commit hook together with the store's own objects, and moved into
``objects/`` by rename only once the hook let them through. A refused
secret, a full disk, Ctrl-C or a killed writer leaves nothing in
``objects/``: no object, no ``.lock``, no half-written file.

The folders stay between commits (removing a directory costs milliseconds
on a disk mounted with ``discard``); whether a writer is using the
quarantine is one byte in the writer lock's file, so the next writer knows
at no cost when one was killed in it and empties it.
"""

import os
from pathlib import Path

from .objects import Objects, loose_object, object_id
from .packs import write_pack

FOLDER = "quarantine"
PACK_FROM = 200  # objects in one commit from which they are written as one pack (an import, a purge)
_IN_USE, _EMPTY = b"q", b"-"


class Quarantine:
    """Where one commit's new objects wait (open with the writer lock held;
    ``lock`` is its file; ``objects`` reads the store's own)."""

    def __init__(self, store: Path, objects: Objects, lock: int):
        self._store_objects = objects
        self._main = f"{store}/objects"  # strings, not Paths: this runs for every object of every commit
        self.dir = f"{store}/{FOLDER}"
        self._lock = lock
        self._new: dict[str, tuple[bytes, bytes]] = {}  # id -> (type, content), until written
        self._waiting: list[str] = []  # files written into the quarantine, relative to it, admitted last first
        if os.pread(lock, 1, 0) == _IN_USE:
            self._empty_what_a_dead_writer_left()
        os.pwrite(lock, _IN_USE, 0)

    def add(self, kind: bytes, content: bytes, sha: str | None = None) -> str:
        """Take an object (unless the store has it already); its hex id (``sha``: known already)."""
        sha = sha or object_id(kind, content)
        if sha not in self._new and not self._in_store(sha):
            self._new[sha] = (kind, content)
        return sha

    def write(self) -> None:
        """Write the objects taken into the quarantine: loose files, or one
        pack when there are many."""
        if len(self._new) >= PACK_FROM:
            pack, index = write_pack(self.dir, self._new)
            self._waiting += [os.path.relpath(index, self.dir), os.path.relpath(pack, self.dir)]
            return
        for sha, (kind, content) in self._new.items():
            path = f"{self.dir}/{sha[:2]}/{sha[2:]}"
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
            except FileNotFoundError:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
            self._waiting.append(f"{sha[:2]}/{sha[2:]}")
            try:
                view = memoryview(loose_object(kind, content))
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)

    def _in_store(self, sha: str) -> bool:
        """Whether the store has it; a loose copy is freshened, as git does,
        so a concurrent prune does not take it before the commit refers to it."""
        try:
            os.utime(f"{self._main}/{sha[:2]}/{sha[2:]}")
            return True
        except FileNotFoundError:
            return self._store_objects.packed(sha)
        except PermissionError:
            return True  # there, but another user's: as good as ours

    def env(self) -> dict[str, str]:
        """For git in a hook: the quarantine first, the store's objects behind it."""
        return {"GIT_OBJECT_DIRECTORY": self.dir, "GIT_ALTERNATE_OBJECT_DIRECTORIES": self._main,
                "GIT_QUARANTINE_PATH": self.dir}

    def admit(self) -> None:
        """Move every file into the store: renames on one file system, so a
        full disk cannot stop it half-way through a file (a pack goes in
        before its index, which is what readers look for)."""
        while self._waiting:
            name = self._waiting[-1]
            target = f"{self._main}/{name}"
            try:
                os.replace(f"{self.dir}/{name}", target)
            except FileNotFoundError:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                os.replace(f"{self.dir}/{name}", target)
            self._waiting.pop()

    def close(self) -> None:
        """Remove what was not admitted (nothing, after ``admit``), and mark the quarantine empty."""
        try:
            for name in self._waiting:
                Path(f"{self.dir}/{name}").unlink(missing_ok=True)
            os.pwrite(self._lock, _EMPTY, 0)
        except OSError:
            pass  # still marked in use: the next writer empties it

    def _empty_what_a_dead_writer_left(self) -> None:
        quarantine = Path(self.dir)
        for folder in quarantine.iterdir() if quarantine.is_dir() else ():
            for leftover in folder.iterdir():
                leftover.unlink()
