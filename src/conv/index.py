"""A disposable SQLite cache of what is in the store, so ``conv list`` and ref
lookups need no walk over 10,000 git trees.

git is the only source of truth. The cache records the commit it reflects;
when the store has moved on it catches up from the tree diff (only the changed
conversations are read), and when it is missing, of another schema, corrupt
or points at a commit that no longer exists, it is rebuilt from scratch.
"""

import fcntl
import json
import os
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import ids, paths
from .errors import RefError, StoreError
from .format import Conversation
from .store import Store

SCHEMA = 2  # bump when the tables change: an old cache is rebuilt, never migrated
BUSY_SECONDS = 30

_TABLES = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE conversations (
    id TEXT PRIMARY KEY, title TEXT, created TEXT, updated TEXT,
    model TEXT, provider TEXT, agent TEXT, tags TEXT, status TEXT,
    turns INTEGER, broken TEXT
);
CREATE INDEX conversations_updated ON conversations (updated);
CREATE TABLE parsed (sha TEXT PRIMARY KEY, data TEXT NOT NULL);
"""


@dataclass
class Row:
    id: str
    title: str
    created: str
    updated: str
    model: str | None
    provider: str | None
    agent: str | None
    tags: list[str]
    status: str
    turns: int
    broken: str | None  # why the conversation could not be read, if it could not


class Index:
    def __init__(self, store: Store, path: Path | None = None):
        self.store = store
        self.path = path or paths.cache_dir() / "index.sqlite"
        self._db: sqlite3.Connection | None = None

    # -- connection ------------------------------------------------------
    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            db = self._connect(self.path)
            self._ensure_schema(db)
            return db
        except sqlite3.DatabaseError as exc:
            _raise_if_busy(exc)
            self._discard()  # not a database at all: start a new file
            db = self._connect(self.path)
            self._ensure_schema(db)
            return db

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        # Rollback journal, not WAL: a rebuilt file is renamed over the old one,
        # which a WAL file beside it would not survive.
        db = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)
        db.execute("PRAGMA synchronous=OFF")  # a cache: a crash costs a rebuild, never data
        return db

    def _ensure_schema(self, db: sqlite3.Connection) -> None:
        """Create the tables, or replace tables of another schema version, in one
        transaction, so processes opening a new cache at once never clash."""
        if self._meta(db, "schema") == str(SCHEMA):
            return
        with _transaction(db):
            if self._meta(db, "schema") != str(SCHEMA):
                for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
                    db.execute(f'DROP TABLE IF EXISTS "{table}"')
                for statement in _TABLES.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA),))

    def _close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _discard(self) -> None:
        self._close()
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    @staticmethod
    def _meta(db: sqlite3.Connection, key: str) -> str | None:
        try:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        except sqlite3.OperationalError as exc:
            _raise_if_busy(exc)
            return None  # no meta table yet
        return row[0] if row else None

    # -- keeping up with git ---------------------------------------------
    def refresh(self) -> "Index":
        """Bring the cache to the store's current commit (cheap when it is there).
        A cache found corrupt on the way is thrown away and rebuilt."""
        try:
            return self._refresh()
        except sqlite3.DatabaseError as exc:
            _raise_if_busy(exc)
            self._discard()
            return self._refresh()

    def _refresh(self) -> "Index":
        for _ in range(3):  # another process may move the cache while we look
            head = self.store.head() or ""
            indexed = self._meta(self.db, "commit")
            if indexed == head:
                return self
            changed = self._changed_since(indexed, head)
            if changed is None:
                self._rebuild(head)
                continue
            with _transaction(self.db):
                if self._meta(self.db, "commit") == indexed:
                    for conv_id in changed:
                        self._reindex(self.db, conv_id, head)
                    self.db.execute("INSERT OR REPLACE INTO meta VALUES ('commit', ?)", (head,))
        return self

    def _changed_since(self, indexed: str | None, head: str) -> set[str] | None:
        """Conversations changed between the two commits, or None: rebuild."""
        if not indexed or not head:
            return None
        try:
            return self.store.changed_conversations(indexed, head)
        except KeyError:  # the indexed commit is gone (history rewritten, gc'd)
            return None

    def _rebuild(self, head: str) -> None:
        """Index every conversation into a new file, then rename it into place:
        readers and writers of the old file are never blocked for the duration,
        and processes that find the cache missing at once rebuild it once."""
        with _flock(self.path.with_name(self.path.name + ".rebuild")):
            self._close()
            indexed = self._meta(self.db, "commit")
            if indexed == head or self._changed_since(indexed, head) is not None:
                return  # rebuilt by another process while we waited: catch up from there
            self._close()
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            tmp.unlink(missing_ok=True)
            self._db = self._connect(tmp)  # get_parsed/put_parsed now fill the new file
            try:
                self._ensure_schema(self._db)
                with _transaction(self._db):
                    for conv_id in self.store.conversation_ids(head) if head else ():
                        self._reindex(self._db, conv_id, head)
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES ('commit', ?)", (head,))
            except BaseException:
                self._close()
                tmp.unlink(missing_ok=True)
                raise
            self._close()
            with _transaction(self.db):  # the old file's write lock: nobody has a journal open on it
                os.replace(tmp, self.path)
            self._close()

    def _reindex(self, db: sqlite3.Connection, conv_id: str, commit: str) -> None:
        try:
            conv, names = self.store.read_header(conv_id, commit, cache=self)
        except RefError:  # gone: deleted, or its conversation.md removed by hand
            db.execute("DELETE FROM conversations WHERE id = ?", (conv_id,))
            return
        except StoreError as exc:  # there but unreadable: listed as broken, never hidden
            db.execute(
                "INSERT OR REPLACE INTO conversations (id, title, created, updated, tags, status, turns, broken)"
                " VALUES (?, '', '', '', '[]', 'active', 0, ?)",
                (conv_id, exc.message),
            )
            return
        self._upsert(db, conv, names)

    @staticmethod
    def _upsert(db: sqlite3.Connection, conv: Conversation, names: list[str]) -> None:
        updated = max([conv.created] + [ids.turn_time(n) for n in names[-1:]])
        db.execute(
            "INSERT OR REPLACE INTO conversations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            (conv.id, conv.title, conv.created, updated, conv.model, conv.provider, conv.agent,
             json.dumps(conv.tags), conv.status, len(names)),
        )

    def record(self, conv: Conversation, names: list[str], old: str | None, new: str) -> None:
        """After conv's own commit: if the cache was current, move it along
        without reading git again; otherwise the next ``refresh`` catches up."""
        try:
            with _transaction(self.db):
                if self._meta(self.db, "commit") == (old or ""):
                    self._upsert(self.db, conv, names)
                    self.db.execute("INSERT OR REPLACE INTO meta VALUES ('commit', ?)", (new,))
        except (sqlite3.DatabaseError, StoreError):
            pass  # busy or broken: the cache just stays behind, and the next refresh catches up

    # -- parsed files, by blob id (see store.ParsedCache) ------------------
    def get_parsed(self, shas: list[str]) -> dict[str, dict]:
        out = {}
        for start in range(0, len(shas), 500):  # SQLite caps the number of parameters
            chunk = shas[start : start + 500]
            marks = ",".join("?" * len(chunk))
            out.update((sha, json.loads(data)) for sha, data in self._rows(f"SELECT sha, data FROM parsed WHERE sha IN ({marks})", chunk))
        return out

    def put_parsed(self, parsed: dict[str, dict]) -> None:
        rows = [(sha, json.dumps(data, ensure_ascii=False)) for sha, data in parsed.items()]
        try:
            with _transaction(self.db):
                self.db.executemany("INSERT OR REPLACE INTO parsed VALUES (?, ?)", rows)
        except sqlite3.OperationalError:
            if not self.db.in_transaction:
                return  # busy: parsing again next time costs less than waiting
            raise

    # -- queries -----------------------------------------------------------
    def _rows(self, sql: str, args=()) -> list[tuple]:
        """Run a query; a cache that turns out corrupt is rebuilt and asked again."""
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as exc:
            _raise_if_busy(exc)
            self._discard()
            self.refresh()
            return self.db.execute(sql, args).fetchall()

    def recent(self, limit: int | None = None, since: str | None = None) -> list[Row]:
        sql = "SELECT * FROM conversations"
        args: list = []
        if since:
            sql += " WHERE updated >= ?"
            args.append(since)
        sql += " ORDER BY updated DESC, id"
        if limit:
            sql += " LIMIT ?"
            args.append(limit)
        return [_row(r) for r in self._rows(sql, args)]

    def all_ids(self) -> list[str]:
        return [r[0] for r in self._rows("SELECT id FROM conversations")]

    def get(self, conv_id: str) -> Row | None:
        rows = self._rows("SELECT * FROM conversations WHERE id = ?", (conv_id,))
        return _row(rows[0]) if rows else None

    def short_id(self, conv_id: str) -> str:
        """The shortest prefix that names only this conversation (at least six
        characters after any agent prefix), from its neighbours in id order."""
        (before, after), = self._rows(
            "SELECT (SELECT max(id) FROM conversations WHERE id < ?1), (SELECT min(id) FROM conversations WHERE id > ?1)",
            (conv_id,),
        )
        length = len(conv_id) - len(ids.token_of(conv_id)) + ids.SHORT_LENGTH
        for other in (before, after):
            if other:
                common = next((i for i, (a, b) in enumerate(zip(conv_id, other)) if a != b), len(other))
                length = max(length, common + 1)
        return conv_id[:length]

    def matching(self, ref: str) -> list[str]:
        """Ids equal to, starting with or ending with ``ref`` (also after an agent prefix)."""
        like = ref.replace("_", r"\_")
        rows = self._rows(
            "SELECT id FROM conversations WHERE id = ?1 OR id LIKE ?2 || '%' ESCAPE '\\'"
            " OR id LIKE '%-' || ?2 || '%' ESCAPE '\\' OR id LIKE '%' || ?2 ESCAPE '\\'",
            (ref, like),
        )
        return sorted(r[0] for r in rows)


@contextmanager
def _flock(path: Path):
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@contextmanager
def _transaction(db: sqlite3.Connection):
    """One write transaction; inside another one, just part of it."""
    if db.in_transaction:
        yield
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _raise_if_busy(exc: sqlite3.DatabaseError) -> None:
    """Locked or busy is contention, not corruption: never a reason to rebuild,
    and after BUSY_SECONDS of waiting, a message rather than a traceback."""
    if "locked" in str(exc) or "busy" in str(exc):
        raise StoreError(
            f"the index stayed busy for {BUSY_SECONDS} s (another conv is rebuilding it?)", "Try again in a moment"
        ) from None


def _row(r: tuple) -> Row:
    return Row(r[0], r[1] or "", r[2] or "", r[3] or "", r[4], r[5], r[6], json.loads(r[7] or "[]"),
               r[8] or "active", r[9] or 0, r[10])
