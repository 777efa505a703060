"""The repository the store keeps: blobs, trees and commits in git's formats,
written straight into the object store (no work tree, no index), and the
branch moved by compare-and-swap under conv's writer lock.

``GitStore`` builds trees and commits on a storage (disk.py says its
interface: read an object, take new ones in a batch and keep them, read and
swap a ref): a bare repository on disk, or the in-memory twin the store's
behaviour suite also runs on. A follow-up and an index build never import
dulwich (objects.py and refs.py read and write git's formats directly; two
commits are compared by their trees, in layout.changed_conversations). What
sync and the purge need uses dulwich on the disk's ``path``, imported then.
"""

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from ...errors import DiskError, StoreError
from ...home.secrets import redact
from ...records import dataclass
from . import gitcli
from .disk import DiskStorage
from .hooks import Hooks
from .objects import DIR_MODE, commit_content, parse_commit, tree_content
from .refs import BRANCH
from .snapshot import FILE_MODE, Existing, Hashed, Snapshot

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of every follow-up): PEP 781's idiom
if TYPE_CHECKING:
    from ..kept_answers import KeptAnswers

AUTHOR = b"conv <conv@localhost>"
ROOT_TIME = 1767225600  # 2026-01-01T00:00:00Z: the time of every store's first commit


@dataclass
class CommitInfo:
    sha: str
    parents: list[str]
    time: int
    message: str


Changes = dict[str, "bytes | Hashed | Existing | None"]  # path -> new content, an object in store, None: gone


class GitStore:
    """A repository with one branch, written only through ``update``; the
    storage's hooks run around each commit."""

    def __init__(self, storage: "DiskStorage", kept_answers: "KeptAnswers | None" = None):
        self.storage = storage
        self.kept_answers = kept_answers
        self._objects = None
        self._refs = None

    @property
    def path(self) -> Path:
        """The repository's folder (what sync, purge and upkeep work on: on disk only)."""
        return self.storage.path

    # -- creation --------------------------------------------------------
    @classmethod
    def open(cls, path: Path, hooks: Hooks, readme: bytes = b"",
             kept_answers: "KeptAnswers | None" = None) -> "GitStore":
        """The store at ``path``, created first when there is none."""
        if not (path / "HEAD").exists():
            cls._create(path, readme)
        return cls(DiskStorage(path, hooks), kept_answers)

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
            GitStore(DiskStorage(tmp)).plant(readme)
            os.rename(tmp, path)
        except OSError as exc:
            if not (path / "HEAD").exists():  # else another process made it first
                raise (DiskError.of(exc, path.parent) or exc) from None
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def plant(self, readme: bytes) -> str:
        """The first commit, the same on every machine (same README, author
        and time, so the same id): stores made apart share a root, and their
        first sync is a fast-forward or an ordinary merge."""
        return self.update(lambda snap: ({"README.md": readme}, "conv: create store"), when=ROOT_TIME)[1]

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
        self.storage.objects.close()

    @property
    def refs(self):
        if self._refs is None:
            from dulwich.refs import DiskRefsContainer

            self._refs = DiskRefsContainer(str(self.path))
        return self._refs

    def head(self) -> str | None:
        """The branch's commit."""
        return self.storage.ref(BRANCH)

    def read_blobs(self, shas: list[str]) -> dict[str, bytes]:
        """Many blobs at once, by id (those not found left out)."""
        return self.storage.read_many(shas)

    def snapshot(self, commit: str | None = None) -> Snapshot:
        return Snapshot(self.storage.objects, commit if commit is not None else self.head())

    def walk(self, head: str, known: Callable[[str], bool] = lambda sha: False) -> Iterator[CommitInfo]:
        """Every commit reachable from ``head`` (merges included), not going
        past commits for which ``known`` says True."""
        stack, seen = [head], set()
        while stack:
            sha = stack.pop()
            if sha in seen or known(sha):
                continue
            seen.add(sha)
            parents, when, message = parse_commit(self.storage.objects.read(sha)[1])
            yield CommitInfo(sha, parents, when, message.decode("utf-8", "replace"))
            stack.extend(parents)

    def merge_base(self, a: str, b: str) -> str | None:
        """The newest common ancestor of two commits (None: unrelated histories)."""
        if self.storage.git_dir:
            try:
                return gitcli.run("--git-dir", self.storage.git_dir, "merge-base", a, b).stdout.strip() or None
            except FileNotFoundError:  # no git CLI
                pass
        ancestors = {info.sha for info in self.walk(b)}
        for info in self.walk(a):
            if info.sha in ancestors:
                return info.sha
        return None

    def is_ancestor(self, commit: str, of: str) -> bool:
        """Whether ``commit`` is ``of`` or in its history (not after a purge rewrote it)."""
        if self.storage.git_dir:
            try:
                done = gitcli.run("--git-dir", self.storage.git_dir, "merge-base", "--is-ancestor", commit, of)
                return done.returncode == 0
            except FileNotFoundError:  # no git CLI
                pass
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
        if not self.storage.swap(BRANCH, expected, to):
            raise StoreError("the store changed during the pull", "Run it again")

    def keep_backup(self, commit: str) -> str:
        """A ref outside the branch pointing at ``commit``: the head before a sync moved it."""
        name = f"refs/conv/backup/{int(time.time())}-{commit[:12]}"
        self.storage.swap(name, None, commit)
        return name

    # -- writing ---------------------------------------------------------
    def update(self, build: Callable[[Snapshot], tuple | None],
               when: int | None = None) -> tuple[str | None, str] | None:
        """One read-modify-write: ``build`` sees the current tree and returns the
        changes, the commit message and optionally more parents (a merge), or None:
        nothing to write. Returns (old commit, new commit), or None. Answers kept by an earlier failed
        write go in first; a write that fails for a full disk or a read-only
        store leaves nothing behind (quarantine.py) and keeps the answer it
        was adding, where room was reserved for it (kept_answers.py)."""
        if self.kept_answers is not None:
            self.kept_answers.commit_kept()
        changes: Changes = {}
        try:
            with self.storage.writing() as batch:
                old = self.head()
                snap = self.snapshot(old)
                built = build(snap)
                if built is None:
                    return None
                made, message, *more = built
                message = redact(message)  # it names models, URLs, errors: never a credential
                changes.update(made)
                new = self._commit(batch, snap, changes, message, more[0] if more else None, when)
        except DiskError as exc:
            kept = self.kept_answers
            raise (kept.kept_after(exc, changes) if kept is not None else exc) from None
        self.storage.committed(message, new)
        return old, new

    def side_commit(self, ref: str, placed: dict[str, "Existing | bytes"], message: str) -> str:
        """A commit on ``ref`` (never the branch) whose tree holds only ``placed`` (path -> an object
        here, or a new file's content), after the ref's last one; that last one when its tree is the same."""
        with self.storage.writing() as batch:
            old = self.storage.ref(ref)
            entries = {path: (found.mode, found.sha) if isinstance(found, Existing)
                       else (FILE_MODE, batch.add(b"blob", found)) for path, found in placed.items()}
            tree = _tree_with(Snapshot(self.storage.objects, None), batch, "", entries) or batch.add(b"tree", b"")
            if old is not None and self.snapshot(old).tree == tree:
                return old
            commit = batch.add(b"commit", commit_content(tree, [old] if old else [], AUTHOR, int(time.time()),
                                                         message.encode() + b"\n"))
            self.storage.keep(batch)
            self.storage.swap(ref, old, commit)
        return commit

    def _commit(self, batch, snap: Snapshot, changes: Changes, message: str,
                merged: list[str] | None, when: int | None) -> str:
        """Take the commit's new objects into ``batch``, let the pre-commit
        hook judge them there, keep them, then move the branch by
        compare-and-swap (call inside ``storage.writing``)."""
        placed, written = {}, []  # written: the blobs this commit makes, for the pre-commit hook
        for path, content in changes.items():
            if content is None:
                placed[path] = None
            elif isinstance(content, Existing):
                placed[path] = (content.mode, content.sha)
            else:
                sha = batch.add(b"blob", content.data, content.sha) if isinstance(content, Hashed) \
                    else batch.add(b"blob", content)
                placed[path] = (FILE_MODE, sha)
                written.append(f"{sha} {path}\n")
        old = snap.commit
        tree = _tree_with(snap, batch, "", placed) or batch.add(b"tree", b"")
        body = message.encode() + (b"" if message.endswith("\n") else b"\n")
        parents, when = ([old] if old else []) + list(merged or []), int(time.time()) if when is None else when
        commit = batch.add(b"commit", commit_content(tree, parents, AUTHOR, when, body))
        # a merge brings what other machines already let through: the hook judges only new writing
        self.storage.keep(batch, None if merged is not None else message, "".join(written))
        if not self.storage.swap(BRANCH, old, commit):  # impossible while every writer takes the flock
            raise StoreError("the store changed during a write", "Run the command again")
        return commit


def _tree_with(snap: Snapshot, batch, where: str, changes: dict) -> str | None:
    """The id of the directory ``where`` of ``snap`` with ``changes`` made
    (path below it -> (mode, id), or None to remove), new trees taken into
    ``batch``; None when nothing is left in it."""
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
        sha = _tree_with(snap, batch, f"{where}/{name}" if where else name, inner)
        key = name.encode("utf-8", "surrogateescape")
        if sha is None:
            entries.pop(key, None)
        else:
            entries[key] = (DIR_MODE, sha)
    return batch.add(b"tree", tree_content(entries)) if entries else None
