"""The one filter that erases purged conversations from history.

It is a pure function of (commit, purged ids): two machines filtering the
same commit apart get the same new commit, so they share history again, and
filtering {X} then {Z} gives what filtering {X, Z} at once gives. A
commit's author, committer, times and message are kept (signatures, which
no longer hold, are dropped); the purged folders leave every tree; a commit
left with its one parent's tree goes; a commit that never reached a purged
folder keeps its id. The old -> new ids are cached in a plain file in the
store (``conv-filter``, not a ref: it keeps nothing reachable), so
filtering a history again costs a lookup a commit.
"""

import hashlib
import stat
from pathlib import Path

from ..home.files import write_atomic
from .git import HealingObjects
from .layout import ROOT, TRASH, shard_path

CACHE = "conv-filter"
_SIGNATURES = (b"gpgsig", b"gpgsig-sha256", b"mergetag")
_DROP = None  # in a path spec: this entry goes


class Filter:
    """``filter(commit)`` is the commit without the ``purged`` conversations.
    Use it with the writer lock held: its cache file is shared."""

    def __init__(self, store_path: Path, objects, purged):
        self.objects = objects
        self.purged = frozenset(purged)
        self._add = HealingObjects(objects).add_object
        self._spec = _spec(self.purged)
        self._trees: dict[tuple, bytes | None] = {}
        self._path = store_path / CACHE
        self._header = "conv-filter 1 " + hashlib.sha256("\n".join(sorted(self.purged)).encode()).hexdigest()
        self._known, self._fresh = self._load() if self.purged else ({}, True)
        self._new: dict[str, str] = {}
        self._present: set[str] = set()

    def __call__(self, sha: str) -> str:
        """The commit ``sha`` becomes (itself when it never reached a purged folder)."""
        if not self.purged:
            return sha
        stack = [sha]
        while stack:  # parents first, without recursion: histories are long
            top = stack[-1]
            if self.cached(top) is not None:
                stack.pop()
                continue
            commit = self.objects[top.encode()]
            parents = [p.decode() for p in commit.parents]
            todo = [p for p in parents if self.cached(p) is None]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            self._known[top] = self._new[top] = self._rewrite(top, commit, parents)
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
            lines = self._path.read_text().splitlines()
        except (OSError, UnicodeDecodeError):
            return {}, True
        if not lines or lines[0] != self._header:
            return {}, True
        known = {}
        for line in lines[1:]:
            old, _, new = line.partition(" ")
            if len(old) == len(new) == 40 and _hex(old) and _hex(new):
                known[old] = new
        return known, False

    def _rewrite(self, sha: str, commit, parents: list[str]) -> str:
        mapped = list(dict.fromkeys(self._known[p] for p in parents))  # two parents may become one
        tree = self._tree(commit.tree, self._spec, root=True)
        if tree == commit.tree and mapped == parents:
            return sha
        if len(mapped) == 1 and self.objects[mapped[0].encode()].tree == tree:
            return mapped[0]  # it only changed what is purged: it goes, message and all
        from dulwich.objects import Commit

        copy = Commit.from_string(_with(commit.as_raw_string(), tree, mapped))
        self._add(copy)
        return copy.id.decode()

    def _tree(self, sha: bytes, spec: dict, root: bool = False) -> bytes | None:
        """``sha`` without the entries ``spec`` names (None: nothing is left of it)."""
        key = (sha, id(spec))
        if key in self._trees:
            return self._trees[key]
        entries, changed = [], False
        for entry in self.objects[sha].iteritems():
            if entry.path not in spec:
                entries.append((entry.path, entry.mode, entry.sha))
                continue
            rule = spec[entry.path]
            new = None if rule is _DROP else (self._tree(entry.sha, rule) if stat.S_ISDIR(entry.mode) else entry.sha)
            changed = changed or new != entry.sha
            if new is not None:
                entries.append((entry.path, entry.mode, new))
        result = sha
        if changed and (entries or root):
            from dulwich.objects import Tree

            tree = Tree()
            for path, mode, entry_sha in entries:
                tree.add(path, mode, entry_sha)
            self._add(tree)
            result = tree.id
        elif changed:
            result = None
        self._trees[key] = result
        return result


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


def _hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)
