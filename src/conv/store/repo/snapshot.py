"""Reading one commit's tree: directories listed, files read, entries to
place elsewhere. Each directory object is read once per snapshot."""

import stat

from ...records import dataclass
from .objects import Entries, Objects, commit_tree, parse_tree

FILE_MODE = stat.S_IFREG | 0o644


@dataclass(frozen=True)
class Existing:
    """An object already in the store, placed at a path: a fork's turns, a
    folder moved to the trash. Nothing is copied."""

    sha: str
    mode: int = FILE_MODE


@dataclass(frozen=True)
class Hashed:
    """New content whose blob id was worked out already (an import hashes
    each file once, to compare it with what the store holds): not hashed again."""

    sha: str
    data: bytes


class Snapshot:
    """Read access to the tree of one commit (each directory read once)."""

    def __init__(self, objects: Objects, commit: str | None):
        self.objects = objects
        self.commit = commit
        self.tree = commit_tree(objects.read(commit)[1]) if commit else None  # the root tree's id
        self._dirs: dict[str, Entries | None] = {}
        self._preloaded: dict[str, bytes] = {}  # blobs read ahead in bulk (preload)

    def dir(self, path: str) -> Entries | None:
        """The entries of the directory at ``path`` ("" is the root), or None."""
        if path in self._dirs:
            return self._dirs[path]
        if not path:
            sha = self.tree
        else:
            parent_path, _, name = path.rpartition("/")
            parent = self.dir(parent_path)
            found = parent.get(name.encode()) if parent is not None else None
            sha = found[1] if found is not None and stat.S_ISDIR(found[0]) else None
        entries = parse_tree(self.objects.read(sha)[1]) if sha is not None else None
        self._dirs[path] = entries
        return entries

    def read(self, path: str) -> bytes | None:
        found = self.entry(path)
        return self.blob(found.sha) if found is not None and stat.S_ISREG(found.mode) else None

    def listdir(self, path: str) -> list[str]:
        """Names in a directory of the tree ([] when it does not exist)."""
        return [name.decode("utf-8", "surrogateescape") for name in self.dir(path) or ()]

    def files(self, path: str) -> dict[str, str]:
        """The regular files directly in a directory: name -> blob id."""
        return {name.decode("utf-8", "surrogateescape"): sha
                for name, (mode, sha) in (self.dir(path) or {}).items() if stat.S_ISREG(mode)}

    def blob(self, sha: str) -> bytes:
        found = self._preloaded.get(sha)
        return found if found is not None else self.objects.read(sha)[1]

    def preload(self, blobs: dict[str, bytes]) -> None:
        """Blobs about to be read, read ahead in one go (they replace the last ones)."""
        self._preloaded = blobs

    def entry(self, path: str) -> Existing | None:
        """The object at ``path`` as something to place elsewhere (None if absent)."""
        parent_path, _, name = path.rpartition("/")
        found = (self.dir(parent_path) or {}).get(name.encode())
        return Existing(found[1], found[0]) if found is not None else None
