"""Reader for pi's sessions: ``--<folder>--/<time>_<session id>.jsonl`` under
``~/.pi/agent/sessions`` (the folder's name is lossy: the folder worked in is
read from the file's first line). Read from pi 0.73.1 (format version 3).

The first line is the session (``id``, ``cwd``; ``parentSession``, the file
it was forked from, when it was). Every other line is an entry of a tree,
``id`` and ``parentId``: ``message`` lines (``role`` user, assistant with
its text, thinking, tool calls, model and usage, ``toolResult``), and pi's
own: a model or thinking level chosen, a label, the session's name (its
title), a compaction's or a branch's summary (kept with the turn before
them, ``injected``, never a question). A branch (pi's ``/tree``) is a fork
from where it went back, as a rewind of Claude Code's is. A session forked
into a file of its own (``pi --fork``) copies what it went on from: it is a
conversation of its own."""

from __future__ import annotations

from pathlib import Path

from ...importers import ImportedConversation
from ...importers.agent import AgentTurns
from ...importers.boundary import Loaded, Reader
from ...importers.session_tree import forks
from ...importers.shape import Anything, Count, Flag, ListOf, Maybe, Number, OneOf, Record, Tagged, Text, Time
from ...importers.tool_calls import Tools, replace, replace_each, shell, write
from . import SOURCE, sessions

_BLOCK = Record({"type": Text, "text": Text, "thinking": Text, "id": Text, "name": Text, "arguments": Anything,
                 "mimeType": Text})
_CONTENT = OneOf(Text, ListOf(_BLOCK, drop=True), what="text or a list of blocks")
_USAGE = Record({**dict.fromkeys(("input", "output", "cacheRead", "cacheWrite"), Maybe(Count)),
                 "cost": Record({"total": Maybe(Number)})})
_MESSAGE = Record({"role": Text, "content": _CONTENT, "model": Text, "provider": Text,
                   "usage": _USAGE, "toolCallId": Text, "toolName": Text, "isError": Flag, "command": Text,
                   "output": Text, "summary": Text, "errorMessage": Text, "stopReason": Text},
                  required=("role",))
def _pi_edit(args) -> list[dict]:
    """pi's edit: one span (``oldText``, ``newText``), or a list of them (``edits``)."""
    if isinstance(args, dict) and isinstance(args.get("edits"), list):
        return replace_each("path", "edits", "oldText", "newText")(args)
    return replace("path", "oldText", "newText")(args)


_ENTRY = {"id": Text, "parentId": Text, "timestamp": Time}
TOOLS = Tools({"write": write("path", "content"), "edit": _pi_edit}, {"bash": shell("command")})
SUMMARIES = {"compaction": "compaction summary", "branch_summary": "branch summary"}  # pi's own entries kept


class Pi(Reader):
    hint = "pi keeps its sessions in ~/.pi/agent/sessions/--<folder>--"
    pattern = "**/*.jsonl"  # a session a file, in a folder a working folder

    record = Tagged("type", {
        "session": Record({"id": Text, "cwd": Text, "timestamp": Time, "parentSession": Text}, required=("id",)),
        "message": Record({**_ENTRY, "message": _MESSAGE}, required=("id", "message")),
        "session_info": Record({**_ENTRY, "name": Text}, required=("id",)),
        "compaction": Record({**_ENTRY, "summary": Text}, required=("id",)),
        "branch_summary": Record({**_ENTRY, "summary": Text}, required=("id",)),
    }, other=Record(_ENTRY))

    def default_path(self) -> Path:
        return sessions()

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        records = loaded.records
        head = next((r for r in records if r["type"] == "session"), None)  # the first line, if it was readable
        entries = [{**r, "uuid": r["id"]} for r in records if r["type"] != "session" and r["id"]]
        named = [r["name"] for r in entries if r["type"] == "session_info" and r["name"]]
        session_id = head["id"] if head else file.stem.rpartition("_")[2]
        return forks(self.source, entries, _is_message, lambda r: r["parentId"], _turns, file, session_id,
                     title=named[-1] if named else "", origin={"cwd": head["cwd"]} if head and head["cwd"] else None)


READER = Pi(SOURCE)


def _is_message(r: dict) -> bool:
    return r["type"] == "message" or (r["type"] in SUMMARIES and bool(r["summary"]))


def _turns(chain: list[dict]) -> list:
    turns = AgentTurns(TOOLS)
    for r in chain:
        time, source_id = r["timestamp"], r["id"]
        if r["type"] in SUMMARIES:
            turns.injected(SUMMARIES[r["type"]], r["summary"])
            continue
        m = r["message"]
        role = m["role"]
        if role == "user":
            text = _text(m["content"])
            if text.strip():
                turns.typed(text, time, source_id)
        elif role == "assistant":
            _answer(turns, m, time, source_id)
        elif role == "toolResult":
            turns.result(m["toolCallId"] or "", _text(m["content"]), bool(m["isError"]), time, source_id)
        elif role == "bashExecution":  # a `!command` typed in pi's editor: its output, never a question
            turns.injected("shell command", f"$ {m['command'] or ''}\n{m['output'] or ''}")
        elif role in ("branchSummary", "compactionSummary"):
            turns.injected(role.replace("Summary", " summary"), m["summary"] or _text(m["content"]))
        else:  # an extension's own message (custom): kept aside
            turns.injected(role, _text(m["content"]))
    return turns.done()


def _answer(turns: AgentTurns, m: dict, time, source_id: str) -> None:
    if m["model"]:
        turns.answered_by(m["model"], time, source_id)
    if m["usage"]:
        turns.used(_usage(m["usage"]), source_id, time, source_id)
    for block in _blocks(m["content"]):
        kind = block["type"]
        if kind == "text":
            turns.said(block["text"] or "", time, source_id)
        elif kind == "thinking":
            turns.thought(block["thinking"] or "", time, source_id)
        elif kind == "toolCall":
            turns.called(block["id"] or "", block["name"] or "tool", block["arguments"], time, source_id)
    if m["stopReason"] == "error" and m["errorMessage"]:
        turns.injected("error", m["errorMessage"])


def _blocks(content) -> list[dict]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else content or []


def _text(content) -> str:
    """A message's text: its text blocks (an image is named, its data left in pi's file)."""
    out = []
    for block in _blocks(content):
        if block["type"] == "text" and block["text"]:
            out.append(block["text"])
        elif block["type"] == "image":
            out.append(f"[image{' ' + block['mimeType'] if block['mimeType'] else ''}]")
    return "\n\n".join(out)


def _usage(used: dict) -> dict:
    """A message's tokens in conv's classes (pi keeps them apart, as Anthropic counts them) and its own cost."""
    out = {"prompt_tokens": used["input"] or 0, "cache_write_tokens": used["cacheWrite"] or 0,
           "cache_read_tokens": used["cacheRead"] or 0, "completion_tokens": used["output"] or 0}
    cost = (used["cost"] or {}).get("total")
    return {**out, "cost": float(cost)} if cost is not None and cost >= 0 else out
