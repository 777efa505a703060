"""Reader for opencode's database (``opencode.db``, SQLite in WAL mode: read
through SQLite, read-only, so that what sits in its write-ahead log is read
too and nothing of opencode's is locked or changed). Read from opencode
1.18.33: tables ``session`` (a folder, a title, ``parent_id`` for a
sub-agent's), ``message`` and ``part``, their ``data`` JSON, times in
milliseconds.

A session is a conversation. A user message's text parts are what a person
typed (those opencode marked ``synthetic`` or ``ignored`` it wrote itself:
kept with the turn, ``injected``); each assistant message is one model call
(its model, its tokens), its parts the text, the reasoning (the thinking)
and the tool calls with their results; a compaction's summary is
opencode's own (injected). A sub-agent's session is left out (what it found
comes back as its task's result); a fork (``--fork``) is a session of its
own, as opencode copies it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from ...errors import UsageError
from ...importers import ImportedConversation
from ...importers.agent import AgentTurns
from ...importers.boundary import Loaded, Reader
from ...importers.files import Unreadable, open_database
from ...importers.shape import Anything, Count, Flag, Maybe, Number, Record, Tagged, Text, Time
from ...importers.tool_calls import Tools, patch, replace, shell, write
from . import SOURCE, database

HINT = "opencode keeps its sessions in ~/.local/share/opencode/opencode.db"
_TOKENS = Record({"input": Maybe(Count), "output": Maybe(Count), "reasoning": Maybe(Count),
                  "cache": Record({"read": Maybe(Count), "write": Maybe(Count)})})
_STATE = Record({"status": Text, "input": Anything, "output": Text, "error": Text})
_PART = Record({"type": Text, "text": Text, "synthetic": Flag, "ignored": Flag, "tool": Text, "callID": Text,
                "state": _STATE, "filename": Text, "mime": Text, "prompt": Text})
_ROWS = {
    "session": Record({"id": Text, "parent_id": Text, "directory": Text, "title": Text, "time_created": Time},
                      required=("id",)),
    "message": Record({"id": Text, "session_id": Text, "time_created": Time,
                       "data": Record({"role": Text, "modelID": Text, "tokens": _TOKENS, "cost": Maybe(Number),
                                       "summary": Anything, "error": Anything}, required=("role",))},
                      required=("id", "session_id", "data")),
    "part": Record({"id": Text, "message_id": Text, "time_created": Time, "data": _PART},
                   required=("id", "message_id", "data")),
}
COLUMNS = {"session": ("id", "parent_id", "directory", "title", "time_created"),
           "message": ("id", "session_id", "time_created", "data"),
           "part": ("id", "message_id", "time_created", "data")}
ORDER = {"session": "time_created, id", "message": "session_id, time_created, id", "part": "message_id, id"}
TOOLS = Tools({"write": write("filePath", "content"), "edit": replace("filePath", "oldString", "newString"),
               "apply_patch": patch("patchText"), "patch": patch("patchText")}, {"bash": shell("command")})
UNTITLED = "New session - "  # the title opencode gives a session before it names it


class Opencode(Reader):
    hint = HINT
    per_session = False  # one database holds every session
    companions = ("-wal",)  # what opencode writes goes to its write-ahead log first
    record = Tagged("table", _ROWS)

    def default_path(self) -> Path:
        return database()

    def files(self, path: Path) -> list[Path]:
        if path.is_dir():
            path = path / "opencode.db"
        if not path.is_file():
            raise UsageError(f"no opencode database at {path}", HINT)
        return [path]

    def load(self, file: Path) -> Loaded:
        db = open_database(file)  # read-only, as a reader among opencode's own: its write-ahead log is read too
        try:
            tables = {row[0] for row in db.execute("select name from sqlite_master where type = 'table'")}
            if not set(COLUMNS) <= tables:
                raise Unreadable("it is not opencode's database (no session, message and part tables)")
            return Loaded([record for table in COLUMNS for record in _rows(db, table)])
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise Unreadable("it is busy (another program holds it locked): run the import again") from None
            raise Unreadable(f"not opencode's database ({exc})") from None
        except sqlite3.DatabaseError as exc:
            raise Unreadable(f"not opencode's database ({exc})") from None
        finally:
            db.close()

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        sessions, messages, parts = [], {}, {}
        for r in loaded.records:
            if r["table"] == "session":
                sessions.append(r)
            elif r["table"] == "message":
                messages.setdefault(r["session_id"], []).append(r)
            else:
                parts.setdefault(r["message_id"], []).append(r)
        out, known = [], {s["id"] for s in sessions}
        for session in sessions:
            if session["parent_id"] and session["parent_id"] in known and session["parent_id"] != session["id"]:
                continue  # a sub-agent's: its findings are its task's result in the session that started it
            # (one whose parent is gone, or is itself, is a conversation of its own: nothing else holds it)
            turns = _turns(messages.get(session["id"], []), parts)
            if not any(t.role == "user" for t in turns):
                continue
            title = session["title"] or ""
            out.append(ImportedConversation(
                source=self.source, source_id=session["id"], title="" if title.startswith(UNTITLED) else title,
                created=turns[0].created, model=next((t.model for t in reversed(turns) if t.model), None),
                turns=turns, origin={"cwd": session["directory"]} if session["directory"] else {}))
        return out


READER = Opencode(SOURCE)


def _rows(db: sqlite3.Connection, table: str):
    """The rows conv reads of ``table``, each a record naming it (times in ms, as Time reads them), ``data`` parsed."""
    wanted = COLUMNS[table]
    for row in db.execute(f'select {", ".join(wanted)} from "{table}" order by {ORDER[table]}'):
        record = {"table": table, **dict(zip(wanted, row))}
        if "data" in record:
            try:
                record["data"] = json.loads(record["data"]) if isinstance(record["data"], str) else None
            except (ValueError, RecursionError):
                record["data"] = None  # not JSON: the record does not fit, and is counted as left out
        yield record


def _turns(messages: list[dict], parts: dict) -> list:
    turns = AgentTurns(TOOLS)
    for m in messages:
        data, time, source_id = m["data"], m["time_created"], m["id"]
        own = parts.get(m["id"], [])
        if data["role"] == "user":
            _question(turns, [p["data"] for p in own], time, source_id)
        elif data["role"] == "assistant":
            _answer(turns, data, own, time, source_id)
    return turns.done()


def _question(turns: AgentTurns, own: list[dict], time, source_id: str) -> None:
    typed = [p["text"] for p in own if p["type"] == "text" and p["text"] and not (p["synthetic"] or p["ignored"])]
    for p in own:
        if p["type"] == "text" and p["text"] and (p["synthetic"] or p["ignored"]):
            turns.injected("opencode", p["text"])
        elif p["type"] == "file":
            typed.append(f"[file {p['filename'] or p['mime'] or ''}]".replace(" ]", "]"))
        elif p["type"] == "subtask" and p["prompt"]:
            typed.append(p["prompt"])
        elif p["type"] == "compaction":
            turns.injected("compaction", "compacted")
    text = "\n\n".join(typed)
    if text.strip() and any(p["type"] != "compaction" for p in own):
        turns.typed(text, time, source_id)


def _answer(turns: AgentTurns, data: dict, own: list[dict], time, source_id: str) -> None:
    if data["summary"] is True:  # a compaction's summary: opencode's own words for the model
        summary = "\n\n".join(p["data"]["text"] for p in own if p["data"]["type"] == "text" and p["data"]["text"])
        return turns.injected("compaction summary", summary or "compacted")
    if data["modelID"]:
        turns.answered_by(data["modelID"], time, source_id)
    if data["tokens"]:
        turns.used(_usage(data["tokens"], data["cost"]), source_id, time, source_id)
    for part in own:
        p, at = part["data"], part["time_created"] or time
        if p["type"] == "text" and not p["synthetic"]:
            turns.said(p["text"] or "", at, source_id)
        elif p["type"] == "reasoning":
            turns.thought(p["text"] or "", at, source_id)
        elif p["type"] == "tool":
            state = p["state"] or {}
            turns.called(p["callID"] or "", p["tool"] or "tool", state.get("input"), at, source_id)
            if state.get("status") in ("completed", "error"):
                failed = state.get("status") == "error"
                turns.result(p["callID"] or "", (state.get("error") if failed else state.get("output")) or "",
                             failed, at, source_id)
    if data["error"]:
        turns.injected("error", json.dumps(data["error"], ensure_ascii=False)[:2000])


def _usage(used: dict, cost) -> dict:
    """A message's tokens in conv's classes (opencode keeps them apart: input without the cache, output without the
    reasoning) and its own cost, in dollars."""
    cache = used["cache"] or {}
    out = {"prompt_tokens": used["input"] or 0, "cache_write_tokens": cache.get("write") or 0,
           "cache_read_tokens": cache.get("read") or 0,
           "completion_tokens": (used["output"] or 0) + (used["reasoning"] or 0),
           "reasoning_tokens": used["reasoning"] or 0}
    return {**out, "cost": float(cost)} if cost is not None and cost >= 0 else out
