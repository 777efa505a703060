"""Reader for Cursor's chats, kept three ways (Cursor publishes no format:
these are the shapes other projects' public readers agree on, cass's,
agentsview's, cursor-history's, vibe-replay's, checked against real files
they quote):

- **agent transcripts**, ``projects/<folder>/agent-transcripts/<chat
  id>.jsonl`` (or ``<chat id>/<chat id>.jsonl``; an older Cursor's ``.txt``):
  a line a message, ``{role, message: {content: [text | tool_use{name,
  input}]}}``, no ids, times or tokens; a person's words in
  ``<user_query>``, after a ``<timestamp>``;
- **the CLI's store**, ``chats/<md5 of the folder>/<chat id>/store.db``:
  ``meta`` (key ``0``, hex of a JSON object: the chat's id, name, start, model,
  ``latestRootBlobId``) and ``blobs``, content-addressed: the root a list of
  references (``0x0a 0x20`` + 32 bytes a message, ``0x12 0x20`` + 32 bytes a
  subtree, in order), a message the AI SDK's JSON (``{role, content:
  [text | reasoning | tool-call | tool-result]}``); its folder in
  ``meta.json`` beside it;
- **the editor's state**, ``state.vscdb``'s ``cursorDiskKV``:
  ``composerData:<id>`` a chat (its name, start, the order of its bubbles in
  ``fullConversationHeadersOnly``), ``bubbleId:<chat>:<bubble>`` a message
  (type 1 a person's, 2 the model's: its text, thinking, a tool call in
  ``toolFormerData``, tokens).

A chat read from a database is not read again from its transcript (the same
id). Every file is read read-only; the databases with their write-ahead logs."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ...errors import UsageError
from ...importers import ImportedConversation
from ...importers.agent import AgentTurns
from ...importers.boundary import Loaded, Reader
from ...importers.files import Unreadable, json_lines, raw
from ...importers.shape import Anything, Count, Flag, ListOf, Maybe, OneOf, Record, Tagged, Text, Time
from ...importers.tool_calls import Tools, deleted, patch, replace, shell, write
from . import SOURCE, editor_state, home
from .stores import composer_ids, composers, state, store

HINT = "Cursor keeps its chats in ~/.cursor (projects/*/agent-transcripts, chats/*/*/store.db) and its state.vscdb"
STATE = "state.vscdb"
_PART = Record({"type": Text, "text": Text, "name": Text, "input": Anything, "toolCallId": Text, "toolName": Text,
                "args": Anything, "result": Anything, "isError": Flag}, required=("type",))
_CONTENT = OneOf(Text, ListOf(_PART, drop=True), what="text or a list of parts")
_LINE = Record({"role": Text, "message": Record({"content": _CONTENT}), "content": _CONTENT})
_LEAF = Record({"role": Text, "content": _CONTENT, "id": Text})
_CHAT = Record({"agentId": Text, "name": Text, "createdAt": Time, "lastUsedModel": Text, "cwd": Text})
_COMPOSER = Record({"composerId": Text, "name": Text, "createdAt": Time, "fullConversationHeadersOnly": ListOf(
    Record({"bubbleId": Text, "type": Count}), drop=True), "modelConfig": Record({"modelName": Text}),
    "workspaceIdentifier": Anything}, required=("composerId",))
_BUBBLE = Record({"composer": Text, "bubbleId": Text, "type": Count, "text": Text, "createdAt": Time,
                  "thinking": Record({"text": Text}), "modelInfo": Record({"modelName": Text}),
                  "tokenCount": Record({"inputTokens": Maybe(Count), "outputTokens": Maybe(Count)}),
                  "toolFormerData": Record({"name": Text, "params": Anything, "rawArgs": Anything, "result": Anything,
                                            "toolCallId": Text, "status": Text})}, required=("composer", "bubbleId"))
CONTEXT = re.compile(r"\s*<(user_info|system_reminder|rules|git_status|agent_transcripts|attached_files|"
                     r"cursor_commands|open_and_recently_viewed_files|additional_data)>")
QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.S)
STAMP = re.compile(r"^\s*<timestamp>.*?</timestamp>\s*", re.S)
TXT_TURN = re.compile(r"^(user|assistant):[ \t]*$", re.M)
TXT_MARK = re.compile(r"^\[(Thinking|Tool call|Tool result)\][ \t]?(.*)$")


def _path_of(args, *keys):
    """The first of ``keys`` that names a file (Cursor's tools say it several ways)."""
    found = next((args[k] for k in keys if isinstance(args, dict) and isinstance(args.get(k), str)), None)
    return {**args, "path": found} if found else args


def _edit_file(args) -> list[dict]:
    """The editor's edit_file: the lines it put in (its ``code_edit`` marks the lines kept as ``… existing code``)."""
    args = _path_of(args, "target_file", "relativeWorkspacePath", "path")
    return [{"kind": "replace", "path": args.get("path"), "after": args.get("code_edit")}] if isinstance(args, dict) \
        else []


def _via(shape, *keys):
    return lambda args: shape(_path_of(args, *keys))


TOOLS = Tools({"Write": _via(write("path", "contents"), "file_path"),
               "StrReplace": _via(replace("path", "old_string", "new_string"), "file_path"),
               "ApplyPatch": patch("patch"), "Delete": deleted("path"), "EditFile": _edit_file,
               "edit_file": _edit_file,
               "edit_file_v2": _via(write("path", "streamingContent"), "relativeWorkspacePath"),
               "search_replace": _via(replace("path", "old_string", "new_string"), "file_path"),
               "write": _via(write("path", "content"), "file_path", "relativeWorkspacePath"),
               "apply_patch": patch("patch"), "delete_file": _via(deleted("path"), "target_file")},
              {"Shell": shell("command"), "run_terminal_cmd": shell("command")})


class Cursor(Reader):
    hint = HINT
    companions = ("-wal",)
    record = Tagged("kind", {"line": _LINE, "leaf": _LEAF, "chat": _CHAT, "composer": _COMPOSER, "bubble": _BUBBLE})

    def default_path(self) -> Path:
        return home()

    def files(self, path: Path) -> list[Path]:
        """Its transcripts, CLI stores and editor state under ``path`` (at ~/.cursor, the editor's state too);
        a transcript of a chat a database holds is left to the database."""
        if path.is_file():
            return [path]
        if not path.is_dir():
            raise UsageError(f"no Cursor chats at {path}", HINT)
        stores = sorted(path.glob("chats/*/*/store.db")) + sorted(path.glob("*/store.db")) + \
            ([path / "store.db"] if (path / "store.db").is_file() else [])
        states = [p for p in (path / STATE, editor_state() if path == self.default_path() else None)
                  if p is not None and p.is_file()]
        held = {p.parent.name for p in stores} | {cid for found in states for cid in composer_ids(found)}
        transcripts = {}
        for found in sorted([*path.glob("**/agent-transcripts/*.jsonl"),
                             *path.glob("**/agent-transcripts/*/*.jsonl"), *path.glob("**/agent-transcripts/*.txt")]):
            if "subagents" not in found.parts and found.stem not in held:
                transcripts.setdefault(found.stem, found)  # a .jsonl before the .txt of the same chat
        return [*stores, *states, *transcripts.values()]

    def load(self, file: Path) -> Loaded:
        if file.name == "store.db":
            return store(file)
        if file.suffix == ".vscdb":
            return state(file)
        if file.suffix == ".jsonl":
            return Loaded([{"kind": "line", **r} if isinstance(r, dict) else r for r in json_lines(file)
                           if not (isinstance(r, dict) and "role" not in r)])  # turn_ended, error: no message
        if file.suffix == ".txt":
            return Loaded(_txt(raw(file).decode("utf-8", "replace")))
        raise Unreadable("not one of Cursor's chats (a transcript, a store.db or a state.vscdb)")

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        records = loaded.records
        if file.suffix == ".vscdb":
            return composers(self.source, records, TOOLS)
        chat = next((r for r in records if r["kind"] == "chat"), None) or {}
        turns = _leaf_turns([r for r in records if r["kind"] in ("leaf", "line")], chat.get("lastUsedModel"))
        if not any(t.role == "user" for t in turns):
            return []
        chat_id = chat.get("agentId") or (file.parent.name if file.name == "store.db" else file.stem)
        return [ImportedConversation(
            source=self.source, source_id=chat_id, title=chat.get("name") or "", created=chat.get("createdAt"),
            model=chat.get("lastUsedModel"), turns=turns, origin={"cwd": chat.get("cwd")})]


READER = Cursor(SOURCE)


def _txt(text: str) -> list[dict]:
    """An older transcript's text: ``user:`` and ``assistant:`` blocks, an assistant's [Thinking] and
    [Tool call] NAME with its ``  key: value`` lines, as the JSON lines' records."""
    marks = list(TXT_TURN.finditer(text))
    out = []
    for n, mark in enumerate(marks):
        body = text[mark.end():marks[n + 1].start() if n + 1 < len(marks) else None].strip("\n")
        parts, call = [], None
        for line in body.split("\n") if mark[1] == "assistant" else []:
            found = TXT_MARK.match(line)
            if found and found[1] == "Tool call":
                call = {"type": "tool_use", "name": found[2].strip(), "input": {}}
                parts.append(call)
            elif found:
                call = None
                if found[1] == "Thinking":
                    parts.append({"type": "reasoning", "text": found[2]})
            elif call is not None and line.startswith("  ") and ":" in line:
                key, _, value = line.strip().partition(":")
                call["input"][key.strip()] = value.strip()
            elif line.strip():
                call = None
                parts.append({"type": "text", "text": line})
        content = parts if mark[1] == "assistant" else [{"type": "text", "text": body}]
        out.append({"kind": "line", "role": mark[1], "message": {"content": content}})
    return out


def _leaf_turns(records: list[dict], model: str | None) -> list:
    """A transcript's lines or a store's messages as turns (the answers by the model the chat last used: the
    store says no other)."""
    turns = AgentTurns(TOOLS)
    for n, r in enumerate(records):
        content = (r["message"] or {}).get("content") if r["kind"] == "line" and r["message"] else r["content"]
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        source_id = r.get("id") or str(n)
        if r["role"] == "user":
            _asked(turns, "\n\n".join(p["text"] or "" for p in parts if p["type"] == "text"), source_id)
        elif r["role"] == "assistant":
            if model:
                turns.answered_by(model, None, source_id)
            for part in parts:
                _part(turns, part, source_id, n)
        elif r["role"] == "tool":
            for part in parts:
                if part["type"] == "tool-result":
                    result = part["result"] if isinstance(part["result"], str) else json.dumps(part["result"])
                    turns.result(part["toolCallId"] or "", result, bool(part["isError"]), None, source_id)
    return turns.done()


def _asked(turns: AgentTurns, text: str, source_id: str) -> None:
    """A user message: a person's words (in <user_query>, after a <timestamp>), else Cursor's own context."""
    query = QUERY.search(text)
    if query:
        turns.typed(query[1], None, source_id)
    elif CONTEXT.match(text) or not text.strip():
        turns.injected("context", text)
    else:
        turns.typed(STAMP.sub("", text), None, source_id)


def _part(turns: AgentTurns, part: dict, source_id: str, n: int) -> None:
    kind = part["type"]
    if kind == "text" and part["text"] and part["text"].strip() != "[REDACTED]":
        turns.said(part["text"], None, source_id)
    elif kind == "reasoning" and part["text"]:
        turns.thought(part["text"], None, source_id)
    elif kind == "tool_use":
        turns.called(f"{source_id}/{n}", part["name"] or "tool", part["input"], None, source_id)
    elif kind == "tool-call":
        turns.called(part["toolCallId"] or f"{source_id}/{n}", part["toolName"] or "tool", part["args"], None,
                     source_id)
