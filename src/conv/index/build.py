"""Filling the cache from git: one conversation's row and turns as a commit
has them, and the commits the cache has not seen yet."""

import json
import sqlite3
from collections.abc import Callable

from ..errors import RefError, StoreError
from ..format.ids import turn_time
from ..format.model import Conversation, usage_totals
from ..home import progress
from ..store import Store
from .parsed import ParsedFiles
from .queries import Row

PRELOAD_FROM = 50  # conversations to (re)index from which their files are read ahead in bulk
PRELOAD_CHUNK = 500  # conversations read ahead at a time (about 3 MB of files)


class Builder:
    """Writes into the cache's connection ``db`` what ``store`` holds; parsed
    files go through ``parsed`` so a blob is parsed once."""

    def __init__(self, db: sqlite3.Connection, store: Store, parsed: ParsedFiles):
        self.db = db
        self.store = store
        self.parsed = parsed

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
        self.parsed.texts.clear()  # what the full-text index did not take (a turn it had already)
        self.add_history()
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('commit', ?)", (head,))

    def _preload(self, conv_ids: list[str], commit: str) -> None:
        """Read the files of ``conv_ids`` that are not parsed yet in one go."""
        shas = []
        for conv_id in conv_ids:
            for trashed in (False, True):
                try:
                    shas += self.store.files(conv_id, commit, trashed).values()
                except RefError:
                    continue
        known = self.parsed.get_parsed(shas)
        self.store.preload(commit, [sha for sha in shas if sha not in known])

    def reindex(self, conv_id: str, commit: str) -> None:
        """One conversation's row and its turns' text, as ``commit`` has them."""
        db = self.db
        for trashed in (False, True):
            try:
                conv = self.store.read(conv_id, commit, cache=self.parsed, trashed=trashed, text=False)
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
            self._upsert(conv, trashed)
            if conv.unreadable:  # listed with its readable turns, and marked
                db.execute("UPDATE conversations SET broken = ? WHERE id = ?",
                           ("; ".join(f"{path}: {why}" for path, why in conv.unreadable.items()), conv_id))
            self._index_turns(conv, self.store.files(conv_id, commit, trashed))
            return
        db.execute("DELETE FROM conversations WHERE id = ?", (conv_id,))  # gone for good
        db.execute("DELETE FROM turns WHERE conv_id = ?", (conv_id,))

    def _upsert(self, conv: Conversation, trashed: bool) -> None:
        names = [t.name for t in conv.turns]
        updated = max([conv.created] + [turn_time(n) for n in sorted(names)[-1:]])
        forked = (conv.forked_from or {}).get("conversation")
        used = usage_totals(conv.turns)
        self.db.execute(
            f"INSERT OR REPLACE INTO conversations ({Row.COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)",
            (conv.id, conv.title, conv.created, updated, conv.model, conv.provider, conv.agent,
             json.dumps(conv.tags), conv.status, len(names), forked, conv.summary, int(trashed),
             used["prompt_tokens"] + used["completion_tokens"], used["cost"],
             sum(t.feedback == "negative" for t in conv.turns)),
        )

    def _index_turns(self, conv: Conversation, files: dict[str, str]) -> None:
        """Keep the searchable text of a conversation's turns in step, touching
        only turns added, removed or rewritten (compared by blob id)."""
        shas = {turn.name: files[f"{turn.name}.md"] for turn in conv.turns}
        known = {name: (rowid, sha) for rowid, name, sha in
                 self.db.execute("SELECT rowid, name, sha FROM turns WHERE conv_id = ?", (conv.id,))}
        stale = [rowid for name, (rowid, sha) in known.items() if shas.get(name) != sha]
        self.db.executemany("DELETE FROM turns WHERE rowid = ?", [(r,) for r in stale])  # a trigger takes the text out
        added = [t for t in conv.turns if known.get(t.name, (None, None))[1] != shas[t.name]]
        if not added:
            return
        # The text goes into the full-text index from here, not from a trigger: FTS5
        # flushes its pending words at every trigger's savepoint (a build took 2.4 s more).
        first = self.db.execute("SELECT coalesce(max(rowid), 0) + 1 FROM turns").fetchone()[0]
        rows = list(enumerate(added, first))
        self.db.executemany("INSERT INTO turns (rowid, conv_id, name, role, sha) VALUES (?, ?, ?, ?, ?)",
                            [(rowid, conv.id, t.name, t.role, shas[t.name]) for rowid, t in rows])
        self.db.executemany("INSERT INTO turn_fts (rowid, content) VALUES (?, ?)",
                            [(rowid, self.parsed.text(shas[t.name])) for rowid, t in rows])

    def add_history(self) -> None:
        """Record the commits the cache has not seen, with the conversations each touched."""
        seen: Callable = lambda sha: self.db.execute("SELECT 1 FROM history WHERE sha = ?", (sha,)).fetchone() is not None  # noqa: E731
        rows = []
        for info, touched in self.store.history(seen):
            message = info.message.strip()
            rows += [(info.sha, conv_id, info.time, message) for conv_id in sorted(touched)] or [(info.sha, None, info.time, message)]
        self.db.executemany("INSERT INTO history VALUES (?, ?, ?, ?)", reversed(rows))  # oldest first: rowid grows with time
