"""Filling the cache from git: conversations' rows and turns as a commit has
them, and the commits the cache has not seen yet."""

import json
import sqlite3
from collections import deque, namedtuple
from collections.abc import Callable

from ..format.ids import turn_time
from ..format.model import going_on_with
from ..format.usage import TOKENS, tokens, usage_totals
from ..home import progress
from ..pool import workers
from ..store import Store
from .queries import Row
from .reading import Found, as_found, read_chunk
from .searchable import searchable
from .written import written_rows

PROJECT = "project"  # conv import --from project: a teammate's (importers.PROJECT)

PRELOAD_FROM = 50  # conversations to (re)index from which their files are read ahead in bulk, by worker processes
PRELOAD_CHUNK = 500  # conversations read ahead at a time (about 3 MB of files; under SQLite's 999 parameters)
READ_AHEAD = 6  # chunks being read or waiting to be written


class Builder:
    """Writes into the cache's connection ``db`` what ``store`` holds, reading
    only the files it has not indexed yet (compared by blob id). Many
    conversations are read a chunk at a time by worker processes while this
    one writes the chunks read before, one statement per table a chunk."""

    def __init__(self, db: sqlite3.Connection, store: Store):
        self.db = db
        self.store = store
        self._next_rowid = 0  # the turn rows' next rowid, asked of SQLite once per catch-up
        # to write at flush
        self._rows: dict[str, list[tuple]] = {"turns": [], "fts": [], "conversations": [], "written": [],
                                              "titles": []}

    def catch_up(self, changed: set[str], head: str, given: "dict[str, tuple] | None" = None) -> None:
        """Reindex the ``changed`` conversations, record new commits, and mark
        the cache as at ``head``. ``given``: conversations ``head`` holds as
        they are there (id -> (conversation, turns)): taken, not read back."""
        order = sorted(changed)
        self._next_rowid = self.db.execute("SELECT coalesce(max(rowid), 0) + 1 FROM turns").fetchone()[0]
        chunks = [order[at : at + PRELOAD_CHUNK] for at in range(0, len(order), PRELOAD_CHUNK)]
        known = self._known(chunks)
        taken = [conv_id for conv_id in order if conv_id in (given or {})]
        order = [conv_id for conv_id in order if conv_id not in (given or {})]
        chunks = [order[at : at + PRELOAD_CHUNK] for at in range(0, len(order), PRELOAD_CHUNK)]
        indexed = [{conv_id: {name: row.sha for name, row in known[conv_id].items()} for conv_id in chunk}
                   for chunk in chunks]
        with progress.steps("indexing conversations", len(order) + len(taken)) as advance:
            if taken:
                self._index([as_found(self.store, head, *given[conv_id]) for conv_id in taken], known, advance)
            if len(order) < PRELOAD_FROM:
                for chunk in indexed:
                    self._index(read_chunk(self.store, head, chunk, ahead=False), known, advance)
            else:
                with workers() as pool:
                    read = lambda chunk: pool.submit(read_chunk, str(self.store.path), head, chunk, True)  # noqa: E731
                    waiting = deque(map(read, indexed[:READ_AHEAD]))  # a few chunks ahead: memory stays flat
                    try:
                        for chunk in [*indexed[READ_AHEAD:], *[None] * len(waiting)]:
                            found = waiting.popleft().result()
                            if chunk is not None:
                                waiting.append(read(chunk))
                            self._index(found, known, advance)
                    finally:
                        for future in waiting:  # Ctrl-C or a failure: what has not started never will
                            future.cancel()
        self.add_history()
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('commit', ?)", (head,))

    def _known(self, chunks: list[list[str]]) -> "dict[str, dict[str, _Known]]":
        """The turn rows the cache has of each conversation, by name."""
        known: dict[str, dict[str, _Known]] = {conv_id: {} for chunk in chunks for conv_id in chunk}
        for chunk in chunks:  # by conversation: turns_conv is the index there is
            for conv_id, rowid, name, sha, role, usage, feedback, model in self.db.execute(
                    "SELECT conv_id, rowid, name, sha, role, usage, feedback, model FROM turns "
                    f"WHERE conv_id IN ({','.join('?' * len(chunk))})",
                    chunk):
                known[conv_id][name] = _Known(rowid, sha, role, usage, feedback, model)
        return known

    def _index(self, found: list[Found], known: "dict[str, dict[str, _Known]]", advance: Callable) -> None:
        """Index a chunk as read, then write its new rows."""
        for conversation in found:
            self._reindex(conversation, known.pop(conversation.conv_id))
            advance()
        rows, self._rows = self._rows, {table: [] for table in self._rows}
        self.db.executemany(f"INSERT INTO turns ({TURN_COLUMNS}) VALUES ({', '.join('?' * 19)})", rows["turns"])
        self.db.executemany("INSERT INTO written (line, turn, file, edit, at, removed) VALUES (?, ?, ?, ?, ?, ?)",
                            rows["written"])
        self.db.executemany("INSERT INTO turn_fts (rowid, content) VALUES (?, ?)", rows["fts"])
        self.db.executemany(f"INSERT OR REPLACE INTO conversations ({Row.COLUMNS}) VALUES ({', '.join('?' * 19)})",
                            rows["conversations"])
        titled = [(title_number(conv_id), searchable(title), conv_id) for conv_id, title in rows["titles"]]
        self.db.executemany("DELETE FROM title_fts WHERE rowid = ?", [(number,) for number, _, _ in titled])
        self.db.executemany("INSERT INTO title_fts (rowid, title, conv_id) VALUES (?, ?, ?)",
                            [row for row in titled if row[1]])

    def _reindex(self, found: Found, known: "dict[str, _Known]") -> None:
        """One conversation's row and its turns: ``known`` are its turn rows."""
        conv_id, db = found.conv_id, self.db
        if found.files is None:  # gone for good
            db.execute("DELETE FROM conversations WHERE id = ?", (conv_id,))
            db.execute("DELETE FROM turns WHERE conv_id = ?", (conv_id,))
            self._rows["titles"].append((conv_id, ""))
            return
        if found.error is not None:  # there but unreadable: listed as broken, never hidden
            db.execute("DELETE FROM turns WHERE conv_id = ?", (conv_id,))
            self._rows["titles"].append((conv_id, ""))
            self._rows["conversations"].append(
                (conv_id, "", "", "", None, None, None, "[]", "active", 0, found.error, None, None, int(found.trashed),
                 0, None, 0, None, None))
            return
        now = found.files
        stale = [(row.rowid,) for name, row in known.items() if now.get(name) != row.sha]
        if stale:
            db.executemany("DELETE FROM turns WHERE rowid = ?", stale)  # a trigger takes the text out
        turns = [_Counted(name, row.role, json.loads(row.usage) if row.usage else None, row.feedback, row.model)
                 for name, row in known.items() if now.get(name) == row.sha]
        # The text goes into the full-text index from here, not from a trigger: FTS5
        # flushes its pending words at every trigger's savepoint (a build took 2.4 s more).
        turn_rows, fts_rows = self._rows["turns"], self._rows["fts"]
        place = _place(found)
        if turns:  # the turns it had: its place may have changed (the trash, and back)
            db.execute("UPDATE turns SET project = ?, remote = ?, source = ?, trashed = ? WHERE conv_id = ?",
                       (*place, conv_id))
        for rowid, (name, role, text, usage, usage_json, feedback, model, edits) in enumerate(found.turns,
                                                                                            self._next_rowid):
            turn_rows.append((rowid, conv_id, name, role, now[name], usage_json, feedback, model,
                              *_spent(usage), *place))
            self._rows["written"] += written_rows(rowid, edits)
            fts_rows.append((rowid, searchable(text)))
            turns.append(_Counted(name, role, usage, feedback, model))
        self._next_rowid += len(found.turns)
        self._add_row(found, turns)

    def _add_row(self, found: Found, turns: "list[_Counted]") -> None:
        """The conversation's row, its totals over ``turns`` (all of its readable turns)."""
        conv = found.conv
        last = max((t.name for t in turns), default=None)
        updated = max(conv.created, turn_time(last)) if last else conv.created
        forked = (conv.forked_from or {}).get("conversation")
        used = usage_totals(turns)
        place = _place(found)
        # listed with its readable turns, and the model it goes on with: its last answer's
        broken = "; ".join(f"{path}: {why}" for path, why in conv.unreadable.items()) or None
        self._rows["titles"].append((conv.id, conv.title))
        self._rows["conversations"].append(
            (conv.id, conv.title, conv.created, updated, going_on_with(turns, conv.model), conv.provider, conv.agent,
             json.dumps(conv.tags), conv.status, len(turns), broken, forked, conv.summary, int(found.trashed),
             tokens(used), used["cost"],
             sum(t.feedback == "negative" for t in turns),
             place[0], place[2]))

    def add_history(self) -> None:
        """Record the commits the cache has not seen, with the conversations each touched."""
        seen: Callable = lambda sha: (  # noqa: E731
            self.db.execute("SELECT 1 FROM history WHERE sha = ?", (sha,)).fetchone() is not None)
        rows = []
        for info, touched in self.store.history(seen):
            message = info.message.strip()
            rows += ([(info.sha, conv_id, info.time, message) for conv_id in sorted(touched)]
                     or [(info.sha, None, info.time, message)])
        # oldest first: rowid grows with time
        self.db.executemany("INSERT INTO history VALUES (?, ?, ?, ?)", reversed(rows))


TURN_COLUMNS = ("rowid, conv_id, name, role, sha, usage, feedback, model, prompt_tokens, cache_write_tokens, "
                "cache_read_tokens, completion_tokens, reasoning_tokens, cost, summed, project, remote, source, "
                "trashed")


def title_number(conv_id: str) -> int:
    """The row a conversation's title has in title_fts: a number its id hashes to (a conversation's row in
    its own table is renumbered each time it is replaced)."""
    import hashlib

    return int.from_bytes(hashlib.blake2b(conv_id.encode(), digest_size=7).digest(), "big")


def _place(found: Found) -> tuple:
    """(project, remote, source, trashed) of a conversation, as its row and its turns' rows keep them: the
    project its work tree's root (else the folder it ran in; a teammate's, the root of this clone)."""
    conv = found.conv
    imported = conv.imported_from or {}
    mine = imported.get("cwd") if imported.get("source") == PROJECT else None  # a teammate's: this clone's root
    return (mine or (conv.project or {}).get("root") or imported.get("cwd"), (conv.project or {}).get("remote"),
            imported.get("source"), int(found.trashed))


def _spent(usage: dict | None) -> tuple:
    """An answer's usage as its row's columns (None: a question, or an answer with none; ``summed`` is 0 or 1
    for every answer with usage)."""
    if not usage:
        return (None,) * 7
    return (*(usage.get(k) for k in TOKENS), usage.get("cost"), int(bool(usage.get("summed"))))


_Known = namedtuple("_Known", "rowid sha role usage feedback model")  # a turn row the cache has
# what a row counts of a turn (usage_totals reads role, usage)
_Counted = namedtuple("_Counted", "name role usage feedback model")
