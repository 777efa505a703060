"""A disposable SQLite cache of what is in the store, so listing, searching,
history and ref lookups need no walk over 10,000 git trees.

git is the only source of truth. The cache records the commit it reflects;
when the store has moved on it catches up from the tree diff (only the changed
conversations are read) and the new commits; when it is missing, of another
schema, corrupt, or points at a commit that no longer exists, it is rebuilt
into a new file that replaces the old one whole.
"""

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from ..errors import StoreError
from ..format.model import Conversation
from ..home import paths
from ..store import Store
from . import db as sql
from .build import Builder
from .queries import Event, Filters, Hit, Queries, Row

__all__ = ["Index", "Queries", "Row", "Filters", "Hit", "Event"]

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of every follow-up): PEP 781's idiom
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")


class Index:
    """The cache of ``store`` in the SQLite file at ``path``: ``refresh()``
    brings it to the store's commit and returns its ``queries``. A file that
    cannot be used (a directory, in a folder that is a file or not writable,
    on a full disk) never stops conv: the run keeps its index in memory,
    built from the store, and ``notice`` hears once what is wrong."""

    def __init__(self, store: Store, path: Path | None = None, notice: Callable[[str], None] = lambda message: None):
        self.store = store
        self.path = path or paths.cache_dir() / "index.sqlite"
        self._notice = notice
        self._memory = False  # the file cannot be used: this run's index lives in memory
        self._db: sqlite3.Connection | None = None
        self._turn_body = _turn_body_of(store)
        self.queries = Queries(self._rows)

    # -- the file ------------------------------------------------------------
    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        if self._memory:
            db = sql.connect(":memory:", self._turn_body)
            sql.ensure_schema(db)
            return db
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            db = sql.connect(self.path, self._turn_body)
            sql.ensure_schema(db)
            return db
        except sqlite3.DatabaseError as exc:
            if sql.unusable(exc):
                raise
            sql.raise_if_busy(exc)
            self._discard()  # not a database at all: start a new file
            db = sql.connect(self.path, self._turn_body)
            sql.ensure_schema(db)
            return db

    def _close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _discard(self) -> None:
        self._close()
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def _recover(self, exc: Exception) -> None:
        """After ``exc`` from the cache: a damaged file is thrown away (the next
        step rebuilds it); one that cannot be used is left alone for memory."""
        if isinstance(exc, (sqlite3.ProgrammingError, sqlite3.InterfaceError, sqlite3.IntegrityError)):
            raise exc  # a bug in a query, not a damaged file: rebuilding would not help
        if isinstance(exc, sqlite3.DatabaseError):
            sql.raise_if_busy(exc)
        if self._memory or (isinstance(exc, OSError) and not sql.concerns(exc, self.path)):
            raise exc  # not the file's doing
        if isinstance(exc, sqlite3.DatabaseError) and not sql.unusable(exc):
            try:
                return self._discard()
            except OSError as error:
                exc = error
        self._close()
        self._memory = True
        why, fix = sql.what_is_wrong(self.path, exc)
        self._notice(f"the index {self.path} cannot be used ({why}); conv works from the store alone for now, "
                     f"more slowly. {fix}")

    def _guarded(self, step: "Callable[[], T]") -> "T":
        """``step``, run again after the cache was rebuilt or moved to memory."""
        for _ in range(2):
            try:
                return step()
            except (OSError, sqlite3.DatabaseError) as exc:
                self._recover(exc)
        return step()

    def _rows(self, query: str, args=()) -> list[tuple]:
        """Run a query; a cache that turns out corrupt is rebuilt and asked again."""
        def run() -> list[tuple]:
            self._refresh()
            return self.db.execute(query, args).fetchall()

        try:
            return self.db.execute(query, args).fetchall()
        except (OSError, sqlite3.DatabaseError) as exc:
            self._recover(exc)
        return self._guarded(run)

    # -- keeping up with git ---------------------------------------------
    def refresh(self) -> Queries:
        """Bring the cache to the store's current commit (cheap when it is there).
        A cache found corrupt on the way is thrown away and rebuilt."""
        return self._guarded(self._refresh)

    def rebuild(self) -> Queries:
        """Start over from git (conv reindex)."""
        self._guarded(lambda: self._rebuild(self.store.head() or "", force=True))
        return self.queries

    def _refresh(self) -> Queries:
        for _ in range(3):  # another process may move the cache while we look
            head = self.store.head() or ""
            indexed = sql.meta(self.db, "commit")
            if indexed == head:
                return self.queries
            changed = self._changed_since(indexed, head)
            if changed is None:
                self._rebuild(head)
                continue
            with sql.transaction(self.db):
                if sql.meta(self.db, "commit") == indexed:
                    self._builder().catch_up(changed, head)
        return self.queries

    def _builder(self) -> Builder:
        return Builder(self.db, self.store)

    def _changed_since(self, indexed: str | None, head: str) -> set[str] | None:
        """Conversations changed between the two commits, or None: rebuild."""
        if not indexed or not head:
            return None
        try:
            return self.store.changed_conversations(indexed, head)
        except KeyError:  # the indexed commit is gone (history rewritten, gc'd)
            return None

    def _rebuild(self, head: str, force: bool = False) -> None:
        """Index everything into a new file, then rename it into place: readers
        and writers of the old file are never blocked for the duration, and
        processes that find the cache missing at once rebuild it once."""
        if self._memory:
            self._close()
            return self._fill(head)
        with sql.flock(self.path.with_name(self.path.name + ".rebuild")):
            self._close()
            indexed = sql.meta(self.db, "commit")
            if not force and (indexed == head or self._changed_since(indexed, head) is not None):
                return  # rebuilt by another process while we waited: catch up from there
            self._close()
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            tmp.unlink(missing_ok=True)
            self._db = sql.connect(tmp, self._turn_body)  # everything below now fills the new file
            try:
                sql.ensure_schema(self._db)
                self._fill(head)
            except BaseException:
                self._close()
                tmp.unlink(missing_ok=True)
                raise
            self._close()
            with sql.transaction(self.db):  # the old file's write lock: nobody has a journal open on it
                os.replace(tmp, self.path)
            self._close()

    def _fill(self, head: str) -> None:
        """Index every conversation of ``head`` into the open cache."""
        with sql.transaction(self.db):
            everything = (set(self.store.conversation_ids(head)) | set(self.store.conversation_ids(head, trashed=True))
                          if head else set())
            self._builder().catch_up(everything, head)

    def record_written(self, written: dict[str, tuple[Conversation, list]], old: str | None, new: str) -> None:
        """After a commit that added the conversations ``written`` whole (id ->
        (conversation, turns), an import): if the cache was at ``old`` (or
        empty, and ``old`` held no conversation), move it to ``new`` taking
        them as given, reading back only what else changed."""
        try:
            with sql.transaction(self.db):
                indexed = sql.meta(self.db, "commit") or ""
                at_old = indexed == (old or "")
                empty_at_old = not indexed and old and next(self.store.conversation_ids(old), None) is None
                if not (at_old or empty_at_old):
                    return
                changed = self._changed_since(indexed, new) if indexed else set(self.store.conversation_ids(new))
                if changed is not None:
                    self._builder().catch_up(changed, new, written)
        except (sqlite3.DatabaseError, StoreError, OSError):
            pass  # busy or broken: the next refresh catches up

    def record(self, conv: Conversation, old: str | None, new: str) -> None:
        """After conv's own commit: if the cache was at ``old``, move it to ``new``
        by reindexing just this conversation; otherwise the next refresh catches up."""
        try:
            with sql.transaction(self.db):
                if sql.meta(self.db, "commit") == (old or ""):
                    self._builder().catch_up({conv.id}, new)
        except (sqlite3.DatabaseError, StoreError, OSError):
            pass  # busy or broken: the cache just stays behind, and the next refresh catches up


def _turn_body_of(store: Store) -> "Callable[[str], str | None]":
    """turn_body(sha) in the cache's SQL (snippets, taking a turn out of the
    full-text index): the text, read from the store; None if it cannot be (a
    purge rebuilds the cache anyway). It holds the store weakly: the SQLite
    connection holding it is opaque to the garbage collector, so a strong
    reference kept the store, its workspace and the open file alive for good
    (a test worker running conv in-process reached 1,150 open files)."""
    import weakref

    held = weakref.ref(store)

    def turn_body(sha: str) -> str | None:
        try:
            return held().turn_text(sha)
        except Exception:  # raised here it would surface as SQLite's "user-defined function raised"
            return None

    return turn_body
