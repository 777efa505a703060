"""Git plumbing for the store: blobs, trees and commits written straight into a
bare repository's object store (no work tree, no index), and the branch moved
by compare-and-swap under conv's writer lock.

Reading trees and commits and writing commits go through objects.py and
refs.py, git's formats read and written directly: a follow-up and an index
build never import dulwich (two commits are compared by their trees, in
layout.changed_conversations). What sync and the purge need uses dulwich,
imported then.
"""

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from ...errors import DiskError, StoreError, writing
from ...home.secrets import redact
from ...records import dataclass
from . import gitcli
from .hooks import Hooks
from .lock import clear_stale_ref_locks, signals_held, writer_lock
from .objects import DIR_MODE, Objects, commit_content, parse_commit, tree_content
from .quarantine import Quarantine
from .refs import BRANCH, read_ref, swap_ref
from .snapshot import FILE_MODE, Existing, Snapshot

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of every follow-up): PEP 781's idiom
if TYPE_CHECKING:
    from ..pending import Pending

AUTHOR = b"conv <conv@localhost>"
ROOT_TIME = 1767225600  # 2026-01-01T00:00:00Z: the time of every store's first commit


@dataclass
class CommitInfo:
    sha: str
    parents: list[str]
    time: int
    message: str


# changes: path -> new content, an existing object, or None to delete the path
Changes = dict[str, "bytes | Existing | None"]


class GitStore:
    """A bare repository with one branch, written only through ``update``;
    its ``hooks`` run around each commit."""

    def __init__(self, path: Path, hooks: Hooks | None = None, pending: "Pending | None" = None):
        self.path = path
        self.hooks = hooks or Hooks(path)
        self.pending = pending
        self._objects = None
        self._refs = None
        self.object_files = Objects(f"{path}/objects")

    # -- creation --------------------------------------------------------
    @classmethod
    def open(cls, path: Path, hooks: Hooks, readme: bytes = b"", pending: "Pending | None" = None) -> "GitStore":
        """The store at ``path``, created first when there is none."""
        if not (path / "HEAD").exists():
            cls._create(path, readme)
        return cls(path, hooks, pending)

    @staticmethod
    def _create(path: Path, readme: bytes) -> None:
        """Build the repository beside its final place, then rename it there:
        two processes starting at once on a fresh machine cannot half-create it."""
        import shutil
        import tempfile

        from dulwich.repo import Repo

        path.parent.mkdir(parents=True, exist_ok=True)
        for leftover in path.parent.glob(".new-store-*"):  # from a creator killed mid-way
            if time.time() - leftover.stat().st_mtime > 60:
                shutil.rmtree(leftover, ignore_errors=True)
        tmp = Path(tempfile.mkdtemp(prefix=".new-store-", dir=path.parent))
        try:
            repo = Repo.init_bare(tmp, default_branch=b"main")
            config = repo.get_config()
            config.set(b"gc", b"auto", b"0")  # gc on conv's terms (conv gc), never mid-push
            # Thousands of small tree versions delta well with a wider window:
            # 10,000 conversations packed in 57 MB instead of 138 MB.
            config.set(b"pack", b"window", b"50")
            config.set(b"core", b"logAllRefUpdates", b"false")
            config.write_to_path()
            (tmp / "description").write_text("conv: LLM conversations\n")
            store = GitStore(tmp)
            # The same first commit on every machine (same README, author and
            # time, so the same id): stores made apart share a root, and their
            # first sync is a fast-forward or an ordinary merge.
            store.update(lambda snap: ({"README.md": readme}, "conv: create store"), when=ROOT_TIME)
            os.rename(tmp, path)
        except OSError as exc:
            if not (path / "HEAD").exists():  # else another process made it first
                raise (DiskError.of(exc, path.parent) or exc) from None
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    # -- reading ---------------------------------------------------------
    @property
    def objects(self):
        """The object store alone: opening it costs less than a dulwich Repo
        (no config, hooks or work-tree machinery is imported)."""
        if self._objects is None:
            from dulwich.object_store import DiskObjectStore

            self._objects = DiskObjectStore(str(self.path / "objects"))
        return self._objects

    def forget_objects(self) -> None:
        """Drop the open object stores (after git rewrote the packs under them)."""
        if self._objects is not None:
            self._objects.close()
            self._objects = None
        self.object_files.close()

    @property
    def refs(self):
        if self._refs is None:
            from dulwich.refs import DiskRefsContainer

            self._refs = DiskRefsContainer(str(self.path))
        return self._refs

    def head(self) -> str | None:
        """The branch's commit."""
        return read_ref(str(self.path), BRANCH)

    def snapshot(self, commit: str | None = None) -> Snapshot:
        return Snapshot(self.object_files, commit if commit is not None else self.head())

    def walk(self, head: str, known: Callable[[str], bool] = lambda sha: False) -> Iterator[CommitInfo]:
        """Every commit reachable from ``head`` (merges included), not going
        past commits for which ``known`` says True."""
        stack, seen = [head], set()
        while stack:
            sha = stack.pop()
            if sha in seen or known(sha):
                continue
            seen.add(sha)
            parents, when, message = parse_commit(self.object_files.read(sha)[1])
            yield CommitInfo(sha, parents, when, message.decode("utf-8", "replace"))
            stack.extend(parents)

    def merge_base(self, a: str, b: str) -> str | None:
        """The newest common ancestor of two commits (None: unrelated histories)."""
        try:
            return gitcli.run("--git-dir", str(self.path), "merge-base", a, b).stdout.strip() or None
        except FileNotFoundError:  # no git CLI
            pass
        ancestors = {info.sha for info in self.walk(b)}
        for info in self.walk(a):
            if info.sha in ancestors:
                return info.sha
        return None

    def is_ancestor(self, commit: str, of: str) -> bool:
        """Whether ``commit`` is ``of`` or in its history (not after a purge rewrote it)."""
        try:
            return gitcli.run("--git-dir", str(self.path), "merge-base", "--is-ancestor", commit, of).returncode == 0
        except FileNotFoundError:  # no git CLI
            return any(info.sha == commit for info in self.walk(of))

    def last_change(self, head: str, stop: str | None, path: str) -> tuple[int, str]:
        """(time, id) of the newest commit from ``head`` back to ``stop`` that
        changed ``path``: when that side last edited the file."""
        previous = None
        for info in self.walk(head, known=lambda sha: sha == stop):
            here = self.snapshot(info.sha).entry(path)
            parent = self.snapshot(info.parents[0]).entry(path) if info.parents else None
            if here != parent:
                return info.time, info.sha
            previous = info
        return (previous.time, previous.sha) if previous else (0, "")

    def fast_forward(self, expected: str | None, to: str) -> None:
        """Move the branch from ``expected`` to its descendant ``to`` (a pull)."""
        with writer_lock(self.path):
            clear_stale_ref_locks(self.path, BRANCH)
            with signals_held():
                if not swap_ref(str(self.path), BRANCH, expected, to):
                    raise StoreError("the store changed during the pull", "Run it again")

    def keep_backup(self, commit: str) -> str:
        """A ref outside the branch pointing at ``commit``: the head before a sync moved it."""
        name = f"refs/conv/backup/{int(time.time())}-{commit[:12]}"
        self.refs.set_if_equals(name.encode(), None, commit.encode())
        return name

    # -- writing ---------------------------------------------------------
    def update(self, build: Callable[[Snapshot], tuple], when: int | None = None) -> tuple[str | None, str]:
        """One read-modify-write: ``build`` sees the current tree and returns the
        changes, the commit message and optionally more parents (a merge).
        Returns (old commit, new commit). Answers kept by an earlier failed
        write go in first; a write that fails for a full disk or a read-only
        store leaves nothing behind (quarantine.py) and keeps the answer it
        was adding, where room was reserved for it (pending.py)."""
        if self.pending is not None:
            self.pending.commit_kept()
        changes: Changes = {}
        try:
            with writing(self.path), writer_lock(self.path) as lock:
                clear_stale_ref_locks(self.path, BRANCH)
                old = self.head()
                snap = self.snapshot(old)
                made, message, *more = build(snap)
                message = redact(message)  # it names models, URLs, errors: never a credential
                changes.update(made)
                new = self._commit(Quarantine(self.path, self.object_files, lock), snap, changes, message,
                                   more[0] if more else None, when)
        except DiskError as exc:
            raise (self.pending.kept_after(exc, changes) if self.pending is not None else exc) from None
        self.hooks.run("post-commit", message, args=[new])
        return old, new

    def side_commit(self, ref: str, folders: dict[str, Existing], message: str) -> str:
        """A commit on ``ref`` (never the branch) whose tree holds only
        ``folders`` (path -> the tree placed there), after the ref's last one;
        that last one when its tree is the same."""
        with writing(self.path), writer_lock(self.path) as lock:
            old, incoming = read_ref(str(self.path), ref), Quarantine(self.path, self.object_files, lock)
            try:
                placed = {path: (found.mode, found.sha) for path, found in folders.items()}
                tree = _tree_with(Snapshot(self.object_files, None), incoming, "", placed) or incoming.add(b"tree", b"")
                if old is not None and Snapshot(self.object_files, old).tree == tree:
                    return old
                commit = incoming.add(b"commit", commit_content(tree, [old] if old else [], AUTHOR, int(time.time()),
                                                                message.encode() + b"\n"))
                incoming.write()
                incoming.admit()
                swap_ref(str(self.path), ref, old, commit)
            finally:
                incoming.close()
        return commit

    def _commit(self, incoming: Quarantine, snap: Snapshot, changes: Changes, message: str,
                merged: list[str] | None, when: int | None) -> str:
        """Write the commit's new objects into a quarantine, let the pre-commit
        hook judge them there, move them into the store, then move the branch
        by compare-and-swap (call with the writer lock held)."""
        try:
            placed, written = {}, []  # written: the blobs this commit makes, for the pre-commit hook
            for path, content in changes.items():
                if content is None:
                    placed[path] = None
                elif isinstance(content, Existing):
                    placed[path] = (content.mode, content.sha)
                else:
                    sha = incoming.add(b"blob", content)
                    placed[path] = (FILE_MODE, sha)
                    written.append(f"{sha} {path}\n")
            old = snap.commit
            tree = _tree_with(snap, incoming, "", placed) or incoming.add(b"tree", b"")
            body = message.encode() + (b"" if message.endswith("\n") else b"\n")
            commit = incoming.add(b"commit", commit_content(
                tree, ([old] if old else []) + list(merged or []), AUTHOR, int(time.time()) if when is None else when, body))
            incoming.write()
            if merged is None:  # a merge brings what other machines already let through
                self.hooks.run("pre-commit", message, stdin="".join(written), env=incoming.env())
            incoming.admit()
            with signals_held():
                ok = swap_ref(str(self.path), BRANCH, old, commit)
        finally:
            incoming.close()
        if not ok:  # impossible while every writer takes the flock; say so if it happens
            raise StoreError("the store changed during a write", "Run the command again")
        return commit


def _tree_with(snap: Snapshot, incoming: Quarantine, where: str, changes: dict) -> str | None:
    """The id of the directory ``where`` of ``snap`` with ``changes`` made
    (path below it -> (mode, id), or None to remove), new trees written into
    ``incoming``; None when nothing is left in it."""
    entries = dict(snap.dir(where) or {})
    below: dict[str, dict] = {}
    for path, change in changes.items():
        name, slash, rest = path.partition("/")
        if slash:
            below.setdefault(name, {})[rest] = change
        elif change is None:
            entries.pop(name.encode("utf-8", "surrogateescape"), None)
        else:
            entries[name.encode("utf-8", "surrogateescape")] = change
    for name, inner in below.items():
        sha = _tree_with(snap, incoming, f"{where}/{name}" if where else name, inner)
        key = name.encode("utf-8", "surrogateescape")
        if sha is None:
            entries.pop(key, None)
        else:
            entries[key] = (DIR_MODE, sha)
    return incoming.add(b"tree", tree_content(entries)) if entries else None
