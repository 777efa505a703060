"""Reading one commit's tree: directories listed, files read, entries to
place elsewhere. Each directory object is read once per snapshot."""

import stat
from dataclasses import dataclass

FILE_MODE = stat.S_IFREG | 0o644


@dataclass(frozen=True)
class Existing:
    """An object already in the store, placed at a path: a fork's turns, a
    folder moved to the trash. Nothing is copied."""

    sha: str
    mode: int = FILE_MODE


class Snapshot:
    """Read access to the tree of one commit (each directory read once)."""

    def __init__(self, objects, commit: str | None):
        self._objects = objects
        self.commit = commit
        self.tree = objects[commit.encode()].tree if commit else None
        self._dirs: dict[str, object] = {}
        self._preloaded: dict[str, bytes] = {}  # blobs read ahead in bulk (preload)

    def _lookup(self, path: str):
        """The object at ``path`` ("" is the root), or None."""
        if path in self._dirs:
            return self._dirs[path]
        if not path:
            obj = self._objects[self.tree] if self.tree is not None else None
        else:
            parent_path, _, name = path.rpartition("/")
            parent = self._lookup(parent_path)
            try:
                obj = self._objects[parent[name.encode()][1]] if parent is not None and parent.type_name == b"tree" else None
            except KeyError:
                obj = None
        if obj is not None and obj.type_name == b"tree":
            self._dirs[path] = obj
        return obj

    def read(self, path: str) -> bytes | None:
        obj = self._lookup(path)
        return obj.data if obj is not None and obj.type_name == b"blob" else None

    def listdir(self, path: str) -> list[str]:
        """Names in a directory of the tree ([] when it does not exist)."""
        obj = self._lookup(path)
        if obj is None or obj.type_name != b"tree":
            return []
        return [entry.path.decode("utf-8", "surrogateescape") for entry in obj.iteritems()]

    def files(self, path: str) -> dict[str, str]:
        """The regular files directly in a directory: name -> blob id."""
        obj = self._lookup(path)
        if obj is None or obj.type_name != b"tree":
            return {}
        return {
            e.path.decode("utf-8", "surrogateescape"): e.sha.decode()
            for e in obj.iteritems()
            if stat.S_ISREG(e.mode)
        }

    def blob(self, sha: str) -> bytes:
        found = self._preloaded.get(sha)
        return found if found is not None else self._objects[sha.encode()].data

    def preload(self, blobs: dict[str, bytes]) -> None:
        """Blobs about to be read, read ahead in one go (they replace the last ones)."""
        self._preloaded = blobs

    def entry(self, path: str) -> Existing | None:
        """The object at ``path`` as something to place elsewhere (None if absent)."""
        parent_path, _, name = path.rpartition("/")
        parent = self._lookup(parent_path)
        if parent is None or parent.type_name != b"tree":
            return None
        try:
            mode, sha = parent[name.encode()]
        except KeyError:
            return None
        return Existing(sha.decode(), mode)
