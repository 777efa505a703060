"""Filling the cache from git: one conversation's row and turns as a commit
has them, and the commits the cache has not seen yet."""

import json
import sqlite3
from collections.abc import Callable

from ..errors import RefError, StoreError
from ..format.ids import turn_time
from ..format.model import Conversation, Turn, usage_totals
from ..home import progress
from ..store import META_FILE, Store
from .queries import Row

PRELOAD_FROM = 50  # conversations to (re)index from which their files are read ahead in bulk
PRELOAD_CHUNK = 500  # conversations read ahead at a time (about 3 MB of files; under SQLite's 999 parameters)


class Builder:
    """Writes into the cache's connection ``db`` what ``store`` holds, reading
    only the files it has not indexed yet (compared by blob id)."""

    def __init__(self, db: sqlite3.Connection, store: Store):
        self.db = db
        self.store = store

    def catch_up(self, changed: set[str], head: str) -> None:
        """Reindex the ``changed`` conversations, record new commits, and mark the cache as at ``head``."""
        order = sorted(changed)
        with progress.steps("indexing conversations", len(order)) as advance:
            for start in range(0, len(order), PRELOAD_CHUNK):
                chunk = order[start : start + PRELOAD_CHUNK]
                if len(order) >= PRELOAD_FROM:
                    self._preload(chunk, head)
                for conv_id in chunk:
                    self.reindex(conv_id, head)
                    advance()
        self.add_history()
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('commit', ?)", (head,))

    def _preload(self, conv_ids: list[str], commit: str) -> None:
        """Read the files of ``conv_ids`` that are not indexed yet in one go."""
        shas = []
        for conv_id in conv_ids:
            for trashed in (False, True):
                try:
                    shas += self.store.files(conv_id, commit, trashed).values()
                except RefError:
                    continue
        known = {sha for (sha,) in self.db.execute(  # by conversation: turns_conv is the index there is
            f"SELECT sha FROM turns WHERE conv_id IN ({','.join('?' * len(conv_ids))})", conv_ids)}
        self.store.preload(commit, [sha for sha in shas if sha not in known])

    def reindex(self, conv_id: str, commit: str) -> None:
        """One conversation's row and its turns, as ``commit`` has them."""
        db = self.db
        known = {name: (rowid, sha) for rowid, name, sha in
                 db.execute("SELECT rowid, name, sha FROM turns WHERE conv_id = ?", (conv_id,))}
        changed = lambda name, sha: known.get(name[:-3], (None, None))[1] != sha  # noqa: E731
        for trashed in (False, True):
            try:
                conv = self.store.read(conv_id, commit, trashed=trashed, wanted=changed)
            except RefError:
                continue  # not under this root
            except StoreError as exc:  # there but unreadable: listed as broken, never hidden
                db.execute("DELETE FROM turns WHERE conv_id = ?", (conv_id,))
                db.execute(
                    "INSERT OR REPLACE INTO conversations (id, title, created, updated, tags, status, turns, broken, trashed)"
                    " VALUES (?, '', '', '', '[]', 'active', 0, ?, ?)",
                    (conv_id, exc.message, int(trashed)),
                )
                return
            self._index_turns(conv, known, self.store.files(conv_id, commit, trashed))
            self._upsert(conv, trashed)
            if conv.unreadable:  # listed with its readable turns, and marked
                db.execute("UPDATE conversations SET broken = ? WHERE id = ?",
                           ("; ".join(f"{path}: {why}" for path, why in conv.unreadable.items()), conv_id))
            return
        db.execute("DELETE FROM conversations WHERE id = ?", (conv_id,))  # gone for good
        db.execute("DELETE FROM turns WHERE conv_id = ?", (conv_id,))

    def _index_turns(self, conv: Conversation, known: dict[str, tuple[int, str]], files: dict[str, str]) -> None:
        """Bring the conversation's turn rows and their searchable text in step:
        ``conv`` holds just the turns added or rewritten since (read by
        ``reindex``), ``known`` the rows there were."""
        now = {name[:-3]: sha for name, sha in files.items() if name != META_FILE}
        stale = [rowid for name, (rowid, sha) in known.items() if now.get(name) != sha]
        self.db.executemany("DELETE FROM turns WHERE rowid = ?", [(r,) for r in stale])  # a trigger takes the text out
        if not conv.turns:
            return
        # The text goes into the full-text index from here, not from a trigger: FTS5
        # flushes its pending words at every trigger's savepoint (a build took 2.4 s more).
        first = self.db.execute("SELECT coalesce(max(rowid), 0) + 1 FROM turns").fetchone()[0]
        rows = list(enumerate(conv.turns, first))
        self.db.executemany(
            "INSERT INTO turns (rowid, conv_id, name, role, sha, usage, feedback) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(rowid, conv.id, t.name, t.role, now[t.name], json.dumps(t.usage) if t.usage else None, t.feedback)
             for rowid, t in rows])
        self.db.executemany("INSERT INTO turn_fts (rowid, content) VALUES (?, ?)", [(rowid, t.content) for rowid, t in rows])

    def _upsert(self, conv: Conversation, trashed: bool) -> None:
        """The conversation's row, its totals over the turn rows (all of its readable turns)."""
        turns = [Turn(name, role, None, usage=json.loads(usage) if usage else None, feedback=feedback)
                 for name, role, usage, feedback in self.db.execute(
                     "SELECT name, role, usage, feedback FROM turns WHERE conv_id = ? ORDER BY name", (conv.id,))]
        updated = max([conv.created] + [turn_time(t.name) for t in turns[-1:]])
        forked = (conv.forked_from or {}).get("conversation")
        used = usage_totals(turns)
        self.db.execute(
            f"INSERT OR REPLACE INTO conversations ({Row.COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)",
            (conv.id, conv.title, conv.created, updated, conv.model, conv.provider, conv.agent,
             json.dumps(conv.tags), conv.status, len(turns), forked, conv.summary, int(trashed),
             used["prompt_tokens"] + used["completion_tokens"], used["cost"],
             sum(t.feedback == "negative" for t in turns)),
        )

    def add_history(self) -> None:
        """Record the commits the cache has not seen, with the conversations each touched."""
        seen: Callable = lambda sha: self.db.execute("SELECT 1 FROM history WHERE sha = ?", (sha,)).fetchone() is not None  # noqa: E731
        rows = []
        for info, touched in self.store.history(seen):
            message = info.message.strip()
            rows += [(info.sha, conv_id, info.time, message) for conv_id in sorted(touched)] or [(info.sha, None, info.time, message)]
        self.db.executemany("INSERT INTO history VALUES (?, ?, ?, ?)", reversed(rows))  # oldest first: rowid grows with time
