"""The store's storage held in memory: the twin of conv.store.repo.disk's
DiskStorage (whose docstring is the interface), for the behaviour suite in
test_store_behaviour.py. Objects are kept in git's formats under git's ids,
so a store built here holds the same objects as one built on disk."""

import threading
from contextlib import contextmanager

from conv.store.repo.objects import object_id


class MemoryObjects:
    def __init__(self):
        self.kept: dict[str, tuple[bytes, bytes]] = {}  # id -> (type, content)

    def read(self, sha: str) -> tuple[bytes, bytes]:
        return self.kept[sha]

    def close(self) -> None:
        pass


class MemoryBatch:
    """New objects of one write, kept only if ``MemoryStorage.keep`` says so."""

    def __init__(self, objects: MemoryObjects):
        self._objects = objects
        self.new: dict[str, tuple[bytes, bytes]] = {}

    def add(self, kind: bytes, content: bytes, sha: str | None = None) -> str:
        sha = sha or object_id(kind, content)
        if sha not in self._objects.kept:
            self.new[sha] = (kind, content)
        return sha


class MemoryStorage:
    git_dir = None  # no git CLI shortcut: GitStore finds merge bases by walking

    def __init__(self):
        self.objects = MemoryObjects()
        self.refs: dict[str, str] = {}
        self.landed: list[tuple[str, str]] = []  # (message, commit) of each commit, as a post-commit hook hears
        self._lock = threading.RLock()

    def ref(self, name: str) -> str | None:
        return self.refs.get(name)

    def swap(self, name: str, old: str | None, new: str) -> bool:
        with self._lock:
            if self.refs.get(name) != old:
                return False
            self.refs[name] = new
            return True

    @contextmanager
    def writing(self):
        with self._lock:
            yield MemoryBatch(self.objects)

    def keep(self, batch: MemoryBatch, message: str | None = None, added: str = "") -> None:
        self.objects.kept.update(batch.new)

    def committed(self, message: str, commit: str) -> None:
        self.landed.append((message, commit))

    def read_many(self, shas: list[str]) -> dict[str, bytes]:
        return {sha: self.objects.kept[sha][1] for sha in shas if sha in self.objects.kept}
