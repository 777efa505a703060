"""The one filter that erases purged conversations from history.

It is a pure function of (commit, purged ids): two machines filtering the
same commit apart get the same new commit, so they share history again, and
filtering {X} then {Z} gives what filtering {X, Z} at once gives. Commits
and trees are edited as raw bytes: a commit keeps every header and its
message byte for byte (signatures, which no longer hold, are dropped); a
tree keeps its other entries as they were; the purged folders leave every
tree (and a shard folder left empty goes with them); a commit left with its
one parent's tree goes; a commit that never reached a purged folder keeps
its id. The old -> new ids are cached in a plain file in the store
(``conv-filter``, not a ref: it keeps nothing reachable), so filtering a
history again costs a lookup a commit.
"""

import hashlib
import re
from pathlib import Path

from ..home.files import write_atomic
from .layout import ROOT, TRASH, shard_path
from .repo.batch import ObjectReader
from .repo.objects import object_id
from .repo.packs import write_pack

CACHE = "conv-filter"
_SIGNATURES = (b"gpgsig", b"gpgsig-sha256", b"mergetag")
_DROP = None  # in a path spec: this entry goes
_ENTRY = re.compile(r"^([0-9a-f]{40}) ([0-9a-f]{40})$", re.M)  # a cache line; a torn one matches nothing


class Filter:
    """``filter(commit)`` is the commit without the ``purged`` conversations.
    Use it with the writer lock held (its cache file is shared), and ``save()``
    when done."""

    def __init__(self, store_path: Path, objects, purged):
        self.objects = objects
        self.purged = frozenset(purged)
        self._read = ObjectReader(store_path, objects)
        self._spec = _spec(self.purged)
        self._trees: dict[tuple, bytes | None] = {}  # (tree, spec node) -> what it becomes
        self._tree_of: dict[bytes, bytes] = {}  # commit -> its tree
        # new objects by id, written as one pack before a ref can point at them
        self._made: dict[str, tuple[bytes, bytes]] = {}
        self._store = store_path
        self._path = store_path / CACHE
        self._header = "conv-filter 1 " + hashlib.sha256("\n".join(sorted(self.purged)).encode()).hexdigest()
        self._known, self._fresh = self._load() if self.purged else ({}, True)
        self._new: dict[str, str] = {}
        self._present: set[str] = set()

    def __call__(self, sha: str) -> str:
        """The commit ``sha`` becomes (itself when it never reached a purged folder)."""
        if not self.purged:
            return sha
        stack, read = [sha], {}
        while stack:  # parents first, without recursion: histories are long
            top = stack[-1]
            if self.cached(top) is not None:
                stack.pop()
                continue
            if top not in read:
                read[top] = self._commit(top.encode())
            todo = [p for p in read[top][1] if self.cached(p) is None]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            image = self._known[top] = self._new[top] = self._rewrite(top, *read.pop(top))
            self._known[image] = self._new[image] = image  # filtered history is left as it is
        if self._made:
            write_pack(str(self._store / "objects"), self._made)
            self._made.clear()
        return self._known[sha]

    def cached(self, sha: str) -> str | None:
        """What ``sha`` became in an earlier filtering, if that commit is still here."""
        image = self._known.get(sha)
        if image is None or image in self._present:
            return image
        if image.encode() in self.objects:
            self._present.add(image)
            return image
        del self._known[sha]  # pruned since: filter it again
        return None

    def save(self) -> None:
        """Append what this filtering learned to the cache file."""
        self._read.close()
        if not self._new:
            return
        if self._fresh:
            write_atomic(self._path, f"{self._header}\n" + "".join(f"{o} {n}\n" for o, n in self._known.items()))
        else:
            with open(self._path, "a") as cache:
                cache.write("".join(f"{old} {new}\n" for old, new in self._new.items()))
        self._new.clear()
        self._fresh = False

    def _load(self) -> tuple[dict[str, str], bool]:
        """(old -> new, whether the file must be started afresh): entries made for another purged set do not hold."""
        try:
            text = self._path.read_text()
        except (OSError, UnicodeDecodeError):
            return {}, True
        if not text.startswith(self._header + "\n"):
            return {}, True
        return dict(_ENTRY.findall(text)), False

    def _commit(self, sha: bytes) -> tuple[bytes, list[str], bytes]:
        """A commit's tree, parents and raw text."""
        kind, raw = self._read(sha)
        if kind != b"commit":
            raise KeyError(sha)
        tree, parents = b"", []
        for line in raw.partition(b"\n\n")[0].split(b"\n"):
            key, _, value = line.partition(b" ")
            if key == b"tree":
                tree = value
            elif key == b"parent":
                parents.append(value.decode())
        self._tree_of[sha] = tree
        return tree, parents, raw

    def _rewrite(self, sha: str, tree: bytes, parents: list[str], raw: bytes) -> str:
        mapped = list(dict.fromkeys(self._known[p] for p in parents))  # two parents may become one
        new_tree = self._tree(tree, self._spec, root=True)
        if new_tree == tree and mapped == parents:
            return sha
        if len(mapped) == 1 and self._tree_of_commit(mapped[0].encode()) == new_tree:
            return mapped[0]  # it only changed what is purged: it goes, message and all
        copy = self._make(b"commit", _with(raw, new_tree, mapped))
        self._tree_of[copy] = new_tree
        return copy.decode()

    def _tree_of_commit(self, sha: bytes) -> bytes:
        if sha not in self._tree_of:
            self._commit(sha)
        return self._tree_of[sha]

    def _tree(self, sha: bytes, spec: dict, root: bool = False) -> bytes | None:
        """``sha`` without the entries ``spec`` names (None: nothing is left of it)."""
        key = (sha, id(spec))
        if key in self._trees:
            return self._trees[key]
        _, data = self._read(sha)
        entries, changed = [], False
        for mode, name, entry_sha in _entries(data):
            if name in spec:
                rule = spec[name]
                new = None if rule is _DROP else (self._tree(entry_sha, rule) if mode == b"40000" else entry_sha)
                if new != entry_sha:
                    changed = True
                    if new is None:
                        continue
                    entry_sha = new
            entries.append(mode + b" " + name + b"\0" + bytes.fromhex(entry_sha.decode()))
        result = sha
        if changed:
            result = self._make(b"tree", b"".join(entries)) if entries or root else None
        self._trees[key] = result
        return result

    def _make(self, kind: bytes, raw: bytes) -> bytes:
        """A new object (written with the others at the end of the call); its id."""
        sha = object_id(kind, raw)
        self._made[sha] = (kind, raw)
        self._present.add(sha)
        return sha.encode()


def _entries(data: bytes):
    """(mode, name, hex sha) of each entry of a raw tree, in its order."""
    at = 0
    while at < len(data):
        space = data.index(b" ", at)
        nul = data.index(b"\0", space)
        yield data[at:space], data[space + 1:nul], data[nul + 1:nul + 21].hex().encode()
        at = nul + 21


def _spec(purged) -> dict:
    """{b"conversations": {b"k": {b"3": {b"k3…": _DROP}}}, b"trash": …}: the folders that go."""
    spec: dict = {}
    for conv_id in purged:
        for root in (ROOT, TRASH):
            node = spec
            *dirs, name = f"{root}/{shard_path(conv_id)}".encode().split(b"/")
            for part in dirs:
                node = node.setdefault(part, {})
            node[name] = _DROP
    return spec


def _with(raw: bytes, tree: bytes, parents: list[str]) -> bytes:
    """A commit's raw text with another tree and parents, every other header
    and the message byte for byte (signatures dropped: they no longer hold)."""
    head, _, message = raw.partition(b"\n\n")
    out = [b"tree " + tree] + [b"parent " + p.encode() for p in parents]
    keep = True
    for line in head.split(b"\n"):
        if not line.startswith(b" "):  # continuation lines go with their header
            keep = line.split(b" ", 1)[0] not in (b"tree", b"parent", *_SIGNATURES)
        if keep:
            out.append(line)
    return b"\n".join(out) + b"\n\n" + message
