"""Reader for the ``llm`` CLI's logs.db (https://llm.datasette.io).

llm has logged in two generations of tables, and a database upgraded from one to the other holds both:

- up to 0.31: ``conversations(id, name, model)`` and ``responses``, one row per exchange (the typed
  prompt, a system prompt when one was given, the response, time, duration, tokens), with fragments in
  ``prompt_fragments`` and ``system_fragments``;
- from 0.32: a content-addressed tree of ``messages`` (hash, parent_hash, role) and their ``parts``,
  ``threads`` (a named pointer at a tip message; an old conversation continued keeps its id) and ``turns``
  (one model call: time, model, usage, and the messages it added, between its ``parent_message_hash`` and
  ``tip_message_hash``). Messages have no time of their own: a message is dated by the first turn of its
  thread that sent or produced it.

Both are read; a thread replaces the legacy conversation with the same id, keeping the legacy turns (their
times and source ids) for the history it repeats. Columns are read only when present (they vary by version).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

from ...errors import UsageError
from ...format.model import ROLES
from ...importers import ImportedConversation, ImportedTurn, shared_prefix
from ...importers.boundary import Loaded, Reader
from ...importers.files import Unreadable, open_database
from ...importers.shape import Count, Key, Maybe, Record, Tagged, Text, Time
from . import SOURCE

HINT = "llm's logs are at `llm logs path`"
RESPONSE_COLUMNS = ("id", "model", "resolved_model", "prompt", "system", "response",
                    "conversation_id", "datetime_utc", "duration_ms", "input_tokens",
                    "output_tokens")
TURN_COLUMNS = ("id", "thread_id", "parent_message_hash", "tip_message_hash", "model",
                "resolved_model", "input_tokens", "output_tokens", "duration_ms",
                "datetime_utc")
THREAD_COLUMNS = ("id", "name", "tip_message_hash", "forked_from", "datetime_utc")
NEW_TABLES = {"threads", "turns", "messages", "parts"}
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_TIMES = {"datetime_utc": Time, "duration_ms": Maybe(Count), "input_tokens": Maybe(Count),
          "output_tokens": Maybe(Count)}
_ROWS = {  # table -> the shape of its rows as conv reads them (ids may be numbers in old versions)
    "conversations": Record({"id": Key, "name": Text, "model": Text}, required=("id",)),
    "responses": Record({**dict.fromkeys(RESPONSE_COLUMNS, Text), "id": Key, "conversation_id": Key, **_TIMES},
                        required=("id",)),
    "fragment": Record({"response_id": Key, "kind": Text, "content": Text}, required=("response_id", "kind")),
    "threads": Record({**dict.fromkeys(THREAD_COLUMNS, Text), "id": Key, "forked_from": Key,
                       "datetime_utc": Time}, required=("id",)),
    "turns": Record({**dict.fromkeys(TURN_COLUMNS, Text), "id": Key, "thread_id": Key, **_TIMES},
                    required=("id", "thread_id")),
    "messages": Record({"hash": Text, "parent_hash": Text, "role": Text}, required=("hash",)),
    "parts": Record({"message_hash": Text, "text": Text, "payload": Text}, required=("message_hash",)),
    "fragments": Record({"id": Key, "content": Text}, required=("id",)),
}


class Llm(Reader):
    hint = HINT
    per_session = False
    record = Tagged("table", _ROWS)

    def default_path(self) -> Path:
        """logs.db where llm keeps it (``llm logs path``): LLM_USER_PATH, else click's app folder for llm."""
        import os
        import sys

        if os.environ.get("LLM_USER_PATH"):
            return Path(os.environ["LLM_USER_PATH"]).expanduser() / "logs.db"
        base = "~/Library/Application Support" if sys.platform == "darwin" else os.environ.get("XDG_CONFIG_HOME")
        return Path(base or "~/.config").expanduser() / "io.datasette.llm" / "logs.db"

    def files(self, path: Path) -> list[Path]:
        if not path.is_file():
            raise UsageError(f"no llm log database at {path}", HINT)
        return [path]

    def load(self, file: Path) -> Loaded:
        db = open_database(file)
        try:
            tables = {row[0] for row in db.execute("select name from sqlite_master")}
            if "responses" not in tables and "threads" not in tables:
                raise Unreadable("it is not llm's logs.db")
            return Loaded(list(_records(db, tables)))
        except sqlite3.DatabaseError as e:
            raise Unreadable(f"not llm's logs.db ({e})") from None
        finally:
            db.close()

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        rows: dict[str, list[dict]] = {}
        for record in loaded.records:
            rows.setdefault(record["table"], []).append(record)
        names = {r["id"]: r for r in rows.get("conversations", ())}
        found = _legacy(rows, names)
        if rows.get("threads"):
            found.update(_threads(rows, names, found))
        return sorted(found.values(), key=lambda c: (c.turns[0].created or EPOCH, c.source_id))


READER = Llm(SOURCE)


def _records(db, tables: set):
    """Every row conv reads, as a record naming its table."""
    if "conversations" in tables:
        yield from _rows(db, "conversations", ("id", "name", "model"))
    if "responses" in tables:
        # Rows also logged as turns (the dual-write era) are read from the threads.
        tail = "where id not in (select id from turns)" if "turns" in tables else ""
        yield from _rows(db, "responses", RESPONSE_COLUMNS, tail)
    for kind in ("prompt", "system"):
        if {f"{kind}_fragments", "fragments"} <= tables:
            for rid, content in db.execute(
                    f'select x.response_id, f.content from "{kind}_fragments" x join fragments f'
                    f' on f.id = x.fragment_id order by x.response_id, x."order"'):
                yield {"table": "fragment", "response_id": rid, "kind": kind, "content": content}
    if NEW_TABLES <= tables:
        yield from _rows(db, "turns", TURN_COLUMNS)
        yield from _rows(db, "threads", THREAD_COLUMNS)
        yield from _rows(db, "messages", ("hash", "parent_hash", "role"))
        for h, text, payload in db.execute("select message_hash, text, payload from parts where type = 'text'"
                                           " order by message_hash, position"):
            yield {"table": "parts", "message_hash": h, "text": text, "payload": payload}
        if "fragments" in tables:
            yield from _rows(db, "fragments", ("id", "content"))


def _rows(db, table: str, wanted: tuple, tail: str = ""):
    """``wanted`` columns of ``table`` (None for those this version lacks), each row a record naming its table."""
    present = {row[1] for row in db.execute(f'pragma table_info("{table}")')}
    columns = ", ".join(f'"{c}"' if c in present else f'null as "{c}"' for c in wanted)
    for row in db.execute(f'select {columns} from "{table}" {tail}'):
        yield {"table": table, **dict(zip(wanted, row))}


def _by_time(rows) -> list[dict]:
    return sorted(rows, key=lambda r: (r["datetime_utc"] or EPOCH, r["id"]))


def _answer(row: dict, start: datetime | None, text: str, source_id: str) -> ImportedTurn:
    """An assistant turn dated when the answer was complete, with its model
    (what the provider reported, else llm's model id) and usage."""
    usage = {k: row[c] for k, c in (("prompt_tokens", "input_tokens"),
                                    ("completion_tokens", "output_tokens"))
             if row[c] is not None}
    end = start + timedelta(milliseconds=min(row["duration_ms"] or 0, 1 << 40)) if start else None
    return ImportedTurn("assistant", text, end, model=row["resolved_model"] or row["model"],
                        usage=usage or None, source_id=source_id)


# -- up to llm 0.31: conversations + responses -------------------------------------


def _legacy(rows: dict, names: dict) -> dict[str, ImportedConversation]:
    fragments: dict[tuple, list[str]] = {}  # (response id, "prompt"|"system") -> fragment texts in order
    for f in rows.get("fragment", ()):
        fragments.setdefault((f["response_id"], f["kind"]), []).append(f["content"] or "")
    groups: dict[str, list[dict]] = {}
    for row in _by_time(rows.get("responses", ())):
        groups.setdefault(row["conversation_id"] or row["id"], []).append(row)
    found = {cid: _legacy_conversation(cid, rows, names.get(cid, {}), fragments)
             for cid, rows in groups.items()}
    return {cid: conv for cid, conv in found.items() if conv.turns}


def _legacy_conversation(cid: str, rows: list[dict], meta: dict, fragments: dict):
    turns: list[ImportedTurn] = []
    system = None
    for row in rows:
        rid, start = row["id"], row["datetime_utc"]
        # How llm assembled what it sent (Prompt.prompt and Prompt.system).
        pieces = fragments.get((rid, "prompt"), []) + ([row["prompt"]] if row["prompt"] else [])
        prompt = "\n".join(pieces)
        bits = fragments.get((rid, "system"), []) + [row["system"] or ""]
        system_text = "\n\n".join(b.strip() for b in bits if b.strip())
        if system_text and system_text != system:  # a system prompt once, or when it changes
            system = system_text
            turns.append(ImportedTurn("system", system, start, source_id=f"{rid}:system"))
        if prompt:
            turns.append(ImportedTurn("user", prompt, start, source_id=f"{rid}:user"))
        if row["response"]:
            turns.append(_answer(row, start, row["response"], f"{rid}:assistant"))
    first = rows[0]
    return ImportedConversation(
        source="llm", source_id=cid, title=meta.get("name") or "", created=first["datetime_utc"],
        model=meta.get("model") or first["resolved_model"] or first["model"], turns=turns)


# -- llm 0.32 and later: threads, turns, messages, parts ----------------------------


def _threads(rows: dict, names: dict, legacy: dict) -> dict[str, ImportedConversation]:
    parents = {m["hash"]: (m["parent_hash"], m["role"]) for m in rows.get("messages", ())}
    texts = _texts(rows)
    calls: dict[str, list[dict]] = {}
    for row in _by_time(rows.get("turns", ())):
        calls.setdefault(row["thread_id"], []).append(row)
    threads = _by_time(rows.get("threads", ()))
    found: dict[str, ImportedConversation] = {}
    dated: dict[str, dict] = {}
    for thread in threads:
        tid, own = thread["id"], calls.get(thread["id"])
        if not own:  # created but never used (e.g. a fork nobody asked in)
            continue
        # A fork's shared history keeps the dates it has in its origin.
        dates = dated[tid] = _dates(parents, own, dated.get(thread["forked_from"], {}))
        chain = _chain(parents, thread["tip_message_hash"] or own[-1]["tip_message_hash"])
        turns = [_message(h, parents[h][1], texts.get(h, ""), *dates[h])
                 for h in chain if h in dates]
        turns = [t for t in turns if t is not None]
        old = legacy.get(tid)
        if old:  # a legacy conversation continued: keep its turns for the history
            n = 0
            while n < min(len(turns), len(old.turns)) and _same(turns[n], old.turns[n]):
                n += 1
            turns = old.turns[:n] + turns[n:]
        if not turns:
            continue
        meta = names.get(tid, {})
        found[tid] = ImportedConversation(
            source="llm", source_id=tid, title=meta.get("name") or thread["name"] or "",
            created=turns[0].created, model=meta.get("model") or own[0]["resolved_model"] or own[0]["model"],
            turns=turns)
    forked_from = {t["id"]: t["forked_from"] for t in threads}
    for tid, conversation in found.items():
        origin = found.get(forked_from.get(tid) or "")
        if origin:
            conversation.fork_of = origin.source_id
            conversation.fork_at = shared_prefix(origin.turns, conversation.turns)
    return found


def _same(a: ImportedTurn, b: ImportedTurn) -> bool:
    return (a.role, a.content) == (b.role, b.content)


def _texts(rows: dict) -> dict[str, str]:
    """Message hash -> its text parts joined (reasoning, tool calls and
    attachments left out), fragment references resolved."""
    fragments = {f["id"]: f["content"] or "" for f in rows.get("fragments", ())}
    out: dict[str, str] = {}
    for part in rows.get("parts", ()):
        text = part["text"]
        if text is None and part["payload"]:
            text = "".join(r["literal"] if "literal" in r else fragments.get(str(r.get("fragment")), "")
                           for r in _text_refs(part["payload"]))
        out[part["message_hash"]] = out.get(part["message_hash"], "") + (text or "")
    return out


def _text_refs(payload: str) -> list[dict]:
    """A part's ``text_ref``: literal texts and fragment references (none, when it is not that)."""
    try:
        refs = json.loads(payload).get("text_ref")
    except (ValueError, AttributeError, RecursionError):
        return []
    return [r for r in refs if isinstance(r, dict) and isinstance(r.get("literal", ""), str)
            and isinstance(r.get("fragment", 0), (int, str))] if isinstance(refs, list) else []


def _chain(parents: dict, tip: str | None) -> list[str]:
    """Message hashes from the root to ``tip``."""
    chain, seen = [], set()
    while tip is not None and tip in parents and tip not in seen:
        seen.add(tip)
        chain.append(tip)
        tip = parents[tip][0]
    return chain[::-1]


def _dates(parents: dict, calls: list[dict], inherited: dict) -> dict[str, tuple]:
    """Message hash -> (time, the call that produced it or None): what a call
    sent first is dated at its start, what it produced at its end."""
    dates = dict(inherited)
    for call in calls:
        start = call["datetime_utc"]
        sent = _chain(parents, call["parent_message_hash"])
        for h in sent:
            dates.setdefault(h, (start, None))
        for h in _chain(parents, call["tip_message_hash"])[len(sent):]:
            dates.setdefault(h, (start, call))
    return dates


def _message(h: str, role: str, text: str, start: datetime | None, call: dict | None):
    if role not in ROLES or not text.strip():
        return None  # tool calls and results, reasoning-only or empty messages
    if role == "assistant" and call is not None:
        return _answer(call, start, text, h)
    return ImportedTurn(role, text, start, source_id=h)
