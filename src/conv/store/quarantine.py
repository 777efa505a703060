"""A commit's new objects, kept apart until the commit is accepted (as git's
receive-pack does): written into a private object directory inside the store,
shown to the pre-commit hook together with the store's own objects, and
moved into ``objects/`` by rename only once the hook let them through. A
refused secret, a full disk, Ctrl-C or a killed writer leaves nothing in
``objects/``: no object, no ``.lock``, no half-written file.
"""

import os
import shutil
import tempfile
from pathlib import Path

PREFIX = "quarantine-"


class Quarantine:
    """Where one commit's new objects wait. Read like an object store (its
    own objects first, then the store's), so dulwich's commit_tree_changes
    builds trees through it."""

    def __init__(self, store: Path, objects):
        self._store_objects = objects
        self._main = store / "objects"
        self.dir = Path(tempfile.mkdtemp(prefix=PREFIX, dir=store))
        self._new: dict[bytes, object] = {}

    def __getitem__(self, sha: bytes):
        obj = self._new.get(sha)
        return obj if obj is not None else self._store_objects[sha]

    def add_object(self, obj) -> None:
        sha = obj.id
        if sha in self._new or self._in_store(sha):
            return
        hexsha = sha.decode()
        folder = self.dir / hexsha[:2]
        folder.mkdir(exist_ok=True)
        fd = os.open(folder / hexsha[2:], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
        try:
            data = memoryview(obj.as_legacy_object())
            while data:
                data = data[os.write(fd, data):]
        finally:
            os.close(fd)
        self._new[sha] = obj

    def _in_store(self, sha: bytes) -> bool:
        """Whether the store has it; a loose copy is freshened, as dulwich does,
        so a concurrent prune does not take it before the commit refers to it."""
        hexsha = sha.decode()
        try:
            os.utime(self._main / hexsha[:2] / hexsha[2:])
            return True
        except FileNotFoundError:
            return self._store_objects.contains_packed(sha)
        except PermissionError:
            return True  # there, but another user's: as good as ours

    def env(self) -> dict[str, str]:
        """For git in a hook: the quarantine first, the store's objects behind it."""
        return {"GIT_OBJECT_DIRECTORY": str(self.dir), "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(self._main),
                "GIT_QUARANTINE_PATH": str(self.dir)}

    def admit(self) -> None:
        """Move every object into the store: renames on one file system, so a
        full disk cannot stop it half-way through a file."""
        for sha in self._new:
            hexsha = sha.decode()
            folder = self._main / hexsha[:2]
            try:
                folder.mkdir()
            except FileExistsError:
                pass
            os.replace(self.dir / hexsha[:2] / hexsha[2:], folder / hexsha[2:])

    def discard(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def clear_left_behind(store: Path) -> None:
    """Remove the quarantines of writers that died (call with the writer flock held)."""
    for leftover in store.glob(PREFIX + "*"):
        shutil.rmtree(leftover, ignore_errors=True)
