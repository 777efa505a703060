"""The cache's SQLite file: its tables, opening it, locking it."""

import fcntl
import os
import sqlite3
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from ..errors import StoreError
from .searchable import searchable

SCHEMA = 19  # bump when the tables change: an old cache is rebuilt, never migrated
BUSY_SECONDS = 30

# The index keeps no turn text: turn_body(sha), a function conv registers on
# its connection, reads it from the store. The builder gives the full-text
# index a turn's text when it adds the turn (conv has just parsed it then);
# the trigger gives it again to take it out (turn_words: as searchable.py
# indexes it); snippets read it for the few results shown.
TABLES = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE conversations (
    id TEXT PRIMARY KEY, title TEXT, created TEXT, updated TEXT,
    model TEXT, provider TEXT, agent TEXT, tags TEXT, status TEXT,
    turns INTEGER, broken TEXT, forked_from TEXT, summary TEXT,
    trashed INTEGER NOT NULL DEFAULT 0,
    tokens INTEGER NOT NULL DEFAULT 0, cost REAL,  -- over its answers; cost NULL when not every answer has one
    wrong INTEGER NOT NULL DEFAULT 0,  -- answers asked again because the user said the one before was wrong
    project TEXT,  -- the root of the git work tree it was about (an import's: the folder it ran in)
    source TEXT  -- the tool it was imported (or captured) from; NULL: conv's own
);
CREATE INDEX conversations_updated ON conversations (trashed, updated);
CREATE TABLE turns (
    rowid INTEGER PRIMARY KEY, conv_id TEXT NOT NULL, name TEXT NOT NULL,
    role TEXT, sha TEXT NOT NULL,  -- the text: in the store, by sha (turn_body)
    usage TEXT, feedback TEXT,  -- what the conversation's totals need (JSON usage of an answer)
    model TEXT,  -- an answer's model: the conversation goes on with its last one
    -- an answer's usage in its classes (format/usage.py) and its conversation's project, source and place, kept
    -- on the row so that conv stats sums a span of answers reading no other table (spending.py)
    prompt_tokens INTEGER, cache_write_tokens INTEGER, cache_read_tokens INTEGER, completion_tokens INTEGER,
    reasoning_tokens INTEGER, cost REAL, summed INTEGER, project TEXT, source TEXT, trashed INTEGER,
    remote TEXT  -- the project's remote (a teammate's clone of it is the same project)
);
-- each line an answer's edits wrote (format/edits.py: lines of ``after`` that ``before`` did not hold) or took
-- out (``removed``), by its key (format/line_keys.py): what conv blame and conv origin look a committed line up
-- in (written.py)
CREATE TABLE written (line INTEGER NOT NULL, turn INTEGER NOT NULL, file TEXT, edit INTEGER, at INTEGER,
                      removed INTEGER);
CREATE INDEX written_line ON written (line);
CREATE INDEX turns_conv ON turns (conv_id);
-- a name begins with its time: conv stats reads a span of answers off this index alone
CREATE INDEX turns_time ON turns (role, name, trashed, project, source, model, prompt_tokens, cache_write_tokens,
                                  cache_read_tokens, completion_tokens, reasoning_tokens, cost, summed);
CREATE VIRTUAL TABLE turn_fts USING fts5(
    content, content='turn_text', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2'
);
CREATE VIEW turn_text AS SELECT rowid, turn_words(sha) AS content FROM turns;
-- each conversation's title (build.py keeps it, by a number its id hashes to), searched as its turns are
CREATE VIRTUAL TABLE title_fts USING fts5(title, conv_id UNINDEXED,
                                          tokenize='porter unicode61 remove_diacritics 2');
CREATE TABLE history (sha TEXT NOT NULL, conv_id TEXT, time INTEGER, message TEXT);
CREATE INDEX history_sha ON history (sha);
CREATE INDEX history_conv ON history (conv_id, time);
CREATE TRIGGER turns_removed AFTER DELETE ON turns BEGIN
    INSERT INTO turn_fts (turn_fts, rowid, content) VALUES ('delete', old.rowid, turn_words(old.sha));
    DELETE FROM written WHERE turn = old.rowid;
END;
"""


def connect(path: Path | str, turn_body: Callable[[str], str | None]) -> sqlite3.Connection:
    """The cache, with ``turn_body(sha)`` (a turn's text, read from the store) for its SQL."""
    # Rollback journal, not WAL: a rebuilt file is renamed over the old one,
    # which a WAL file beside it would not survive.
    if str(path) != ":memory:":
        _private(str(path))
    db = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)
    db.execute("PRAGMA synchronous=OFF")  # a cache: a crash costs a rebuild, never data
    db.create_function("turn_body", 1, turn_body, deterministic=True)
    db.create_function("turn_words", 1, lambda sha: searchable(turn_body(sha)), deterministic=True)  # as indexed
    return db


def _private(path: str) -> None:
    """The cache readable by its owner alone, as the store is: it holds every title and project, and the
    words of every turn (SQLite gives its journal the file's own mode). Made so, or made so now."""
    import os

    try:
        os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
        if os.stat(path).st_mode & 0o077:
            os.chmod(path, 0o600)
    except OSError:  # a read-only or foreign cache: SQLite says what is wrong with it
        pass


def meta(db: sqlite3.Connection, key: str) -> str | None:
    try:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.OperationalError as exc:
        raise_if_busy(exc)
        return None  # no meta table yet
    return row[0] if row else None


def ensure_schema(db: sqlite3.Connection) -> None:
    """Create the tables, or replace tables of another schema version, in one
    transaction, so processes opening a new cache at once never clash."""
    if meta(db, "schema") == str(SCHEMA):
        return
    with transaction(db):
        if meta(db, "schema") != str(SCHEMA):
            for kind in ("trigger", "view", "table"):
                for (name,) in db.execute(f"SELECT name FROM sqlite_master WHERE type = '{kind}'").fetchall():
                    if not name.startswith(("turn_fts_", "title_fts_")):  # shadow tables go with their FTS table
                        db.execute(f'DROP {kind.upper()} IF EXISTS "{name}"')
            for statement in _statements(TABLES):
                db.execute(statement)
            db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA),))


def _statements(script: str):
    """One statement at a time (executescript would commit the open transaction)."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            yield buffer.strip()
            buffer = ""


@contextmanager
def flock(path: Path):
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@contextmanager
def transaction(db: sqlite3.Connection):
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


def raise_if_busy(exc: sqlite3.DatabaseError) -> None:
    """Locked or busy is contention, not corruption: never a reason to rebuild,
    and after BUSY_SECONDS of waiting, a message rather than a traceback."""
    if "locked" in str(exc) or "busy" in str(exc):
        raise StoreError(
            f"the index stayed busy for {BUSY_SECONDS} s (another conv is rebuilding it?)", "Try again in a moment"
        ) from None


# SQLite's primary result codes for a file that cannot be used, as against a damaged one:
# PERM, READONLY, IOERR, FULL, CANTOPEN. Rebuilding into the same place would not help.
_UNUSABLE = {3, 8, 10, 13, 14}


def unusable(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite could not use the file at all (not: found it damaged)."""
    return (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF in _UNUSABLE


def concerns(exc: OSError, path: Path) -> bool:
    """Whether an OSError is about the cache's file or the folders holding it."""
    if exc.filename is None:
        return False
    where, folder = Path(os.fsdecode(exc.filename)), path.parent
    return where == folder or folder in where.parents or where in folder.parents


def what_is_wrong(path: Path, exc: Exception) -> tuple[str, str]:
    """(what is wrong with the cache at ``path``, what to do), from what is on disk."""
    import errno

    if path.is_dir():
        return "it is a directory", f"Remove it: rm -r {path}"
    existing = next((p for p in (path.parent, *path.parent.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        return f"{existing} is a file, not a folder", f"Move that file away: mv {existing} {existing}.old"
    if (getattr(exc, "errno", None) in (errno.ENOSPC, errno.EDQUOT)
            or (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF == 13):
        return "no space left on its disk", "Free some space"
    if not os.access(existing or path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return "you may not write there", f"Make it yours: chown -R $(id -un) {path.parent}"
    return str(exc), f"Remove it: rm -f {path}"
