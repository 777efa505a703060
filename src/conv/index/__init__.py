"""A disposable SQLite cache of what is in the store, so listing, searching,
history and ref lookups need no walk over 10,000 git trees.

git is the only source of truth. The cache records the commit it reflects;
when the store has moved on it catches up from the tree diff (only the changed
conversations are read) and the new commits; when it is missing, of another
schema, corrupt, or points at a commit that no longer exists, it is rebuilt
into a new file that replaces the old one whole.
"""

import json
import os
import sqlite3
from pathlib import Path

from ..errors import RefError, StoreError
from ..format import ids
from ..format.model import Conversation
from ..home import paths
from ..services.ask.pricing import totals
from ..store import ROOT, TRASH, Store
from . import db as sql
from .queries import Event, Filters, Hit, Queries, Row

__all__ = ["Index", "Row", "Filters", "Hit", "Event"]


class Index(Queries):
    def __init__(self, store: Store, path: Path | None = None):
        self.store = store
        self.path = path or paths.cache_dir() / "index.sqlite"
        self._db: sqlite3.Connection | None = None

    # -- the file ------------------------------------------------------------
    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            db = sql.connect(self.path)
            sql.ensure_schema(db)
            return db
        except sqlite3.DatabaseError as exc:
            sql.raise_if_busy(exc)
            self._discard()  # not a database at all: start a new file
            db = sql.connect(self.path)
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

    def _rows(self, query: str, args=()) -> list[tuple]:
        """Run a query; a cache that turns out corrupt is rebuilt and asked again."""
        try:
            return self.db.execute(query, args).fetchall()
        except (sqlite3.ProgrammingError, sqlite3.InterfaceError, sqlite3.IntegrityError):
            raise  # a bug in the query, not a damaged file: rebuilding would not help
        except sqlite3.DatabaseError as exc:
            sql.raise_if_busy(exc)
            self._discard()
            self.refresh()
            return self.db.execute(query, args).fetchall()

    # -- keeping up with git ---------------------------------------------
    def refresh(self) -> "Index":
        """Bring the cache to the store's current commit (cheap when it is there).
        A cache found corrupt on the way is thrown away and rebuilt."""
        try:
            return self._refresh()
        except sqlite3.DatabaseError as exc:
            sql.raise_if_busy(exc)
            self._discard()
            return self._refresh()

    def rebuild(self) -> "Index":
        """Start over from git (conv reindex)."""
        self._rebuild(self.store.head() or "", force=True)
        return self

    def _refresh(self) -> "Index":
        for _ in range(3):  # another process may move the cache while we look
            head = self.store.head() or ""
            indexed = sql.meta(self.db, "commit")
            if indexed == head:
                return self
            changed = self._changed_since(indexed, head)
            if changed is None:
                self._rebuild(head)
                continue
            with sql.transaction(self.db):
                if sql.meta(self.db, "commit") == indexed:
                    self._catch_up(changed, head)
        return self

    def _changed_since(self, indexed: str | None, head: str) -> set[str] | None:
        """Conversations changed between the two commits, or None: rebuild."""
        if not indexed or not head:
            return None
        try:
            return self.store.changed_conversations(indexed, head)
        except KeyError:  # the indexed commit is gone (history rewritten, gc'd)
            return None

    def _catch_up(self, changed, head: str) -> None:
        for conv_id in changed:
            self._reindex(conv_id, head)
        self._add_history()
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('commit', ?)", (head,))

    def _rebuild(self, head: str, force: bool = False) -> None:
        """Index everything into a new file, then rename it into place: readers
        and writers of the old file are never blocked for the duration, and
        processes that find the cache missing at once rebuild it once."""
        with sql.flock(self.path.with_name(self.path.name + ".rebuild")):
            self._close()
            indexed = sql.meta(self.db, "commit")
            if not force and (indexed == head or self._changed_since(indexed, head) is not None):
                return  # rebuilt by another process while we waited: catch up from there
            self._close()
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            tmp.unlink(missing_ok=True)
            self._db = sql.connect(tmp)  # everything below now fills the new file
            try:
                sql.ensure_schema(self._db)
                with sql.transaction(self._db):
                    sql.drop_triggers(self._db)  # the text is indexed in one pass at the end
                    everything = set(self.store.conversation_ids(head)) | set(self.store.conversation_ids(head, TRASH)) if head else set()
                    self._catch_up(everything, head)
                    self._db.execute("INSERT INTO turn_fts (turn_fts) VALUES ('rebuild')")
                    sql.add_triggers(self._db)
            except BaseException:
                self._close()
                tmp.unlink(missing_ok=True)
                raise
            self._close()
            with sql.transaction(self.db):  # the old file's write lock: nobody has a journal open on it
                os.replace(tmp, self.path)
            self._close()

    def _reindex(self, conv_id: str, commit: str) -> None:
        """One conversation's row and its turns' text, as ``commit`` has them."""
        db = self.db
        for root in (ROOT, TRASH):
            try:
                conv = self.store.read(conv_id, commit, cache=self, root=root)
            except RefError:
                continue  # not under this root
            except StoreError as exc:  # there but unreadable: listed as broken, never hidden
                db.execute("DELETE FROM turns WHERE conv_id = ?", (conv_id,))
                db.execute(
                    "INSERT OR REPLACE INTO conversations (id, title, created, updated, tags, status, turns, broken, trashed)"
                    " VALUES (?, '', '', '', '[]', 'active', 0, ?, ?)",
                    (conv_id, exc.message, int(root == TRASH)),
                )
                return
            self._upsert(conv, trashed=root == TRASH)
            self._index_turns(conv, self.store.files(conv_id, commit, root))
            return
        db.execute("DELETE FROM conversations WHERE id = ?", (conv_id,))  # gone for good
        db.execute("DELETE FROM turns WHERE conv_id = ?", (conv_id,))

    def _upsert(self, conv: Conversation, trashed: bool = False) -> None:
        names = [t.name for t in conv.turns]
        updated = max([conv.created] + [ids.turn_time(n) for n in sorted(names)[-1:]])
        forked = (conv.forked_from or {}).get("conversation")
        used = totals(conv.turns)
        self.db.execute(
            f"INSERT OR REPLACE INTO conversations ({Row.COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)",
            (conv.id, conv.title, conv.created, updated, conv.model, conv.provider, conv.agent,
             json.dumps(conv.tags), conv.status, len(names), forked, conv.summary, int(trashed),
             used["prompt_tokens"] + used["completion_tokens"], used["cost"]),
        )

    def _index_turns(self, conv: Conversation, files: dict[str, str]) -> None:
        """Keep the searchable text of a conversation's turns in step, touching
        only turns added, removed or rewritten (compared by blob id)."""
        shas = {turn.name: files[f"{turn.name}.md"] for turn in conv.turns}
        known = {name: (rowid, sha) for rowid, name, sha in
                 self.db.execute("SELECT rowid, name, sha FROM turns WHERE conv_id = ?", (conv.id,))}
        stale = [rowid for name, (rowid, sha) in known.items() if shas.get(name) != sha]
        self.db.executemany("DELETE FROM turns WHERE rowid = ?", [(r,) for r in stale])
        self.db.executemany(
            "INSERT INTO turns (conv_id, name, role, sha, content) VALUES (?, ?, ?, ?, ?)",
            [(conv.id, t.name, t.role, shas[t.name], t.content) for t in conv.turns
             if known.get(t.name, (None, None))[1] != shas[t.name]],
        )

    def _add_history(self) -> None:
        """Record the commits the cache has not seen, with the conversations each touched."""
        seen = self.db.execute
        rows = []
        for info, touched in self.store.history(lambda sha: seen("SELECT 1 FROM history WHERE sha = ?", (sha,)).fetchone() is not None):
            message = info.message.strip()
            rows += [(info.sha, conv_id, info.time, message) for conv_id in sorted(touched)] or [(info.sha, None, info.time, message)]
        self.db.executemany("INSERT INTO history VALUES (?, ?, ?, ?)", reversed(rows))  # oldest first: rowid grows with time

    def record(self, conv: Conversation, old: str | None, new: str) -> None:
        """After conv's own commit: if the cache was at ``old``, move it to ``new``
        by reindexing just this conversation; otherwise the next refresh catches up."""
        try:
            with sql.transaction(self.db):
                if sql.meta(self.db, "commit") == (old or ""):
                    self._catch_up({conv.id}, new)
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
            with sql.transaction(self.db):
                self.db.executemany("INSERT OR REPLACE INTO parsed VALUES (?, ?)", rows)
        except sqlite3.OperationalError:
            if not self.db.in_transaction:
                return  # busy: parsing again next time costs less than waiting
            raise
