"""Reader for Qwen Code's sessions: ``<folder>/chats/<session id>.jsonl``
under ``~/.qwen/projects`` (``QWEN_HOME`` moves ``~/.qwen``; the folder is
the working folder's path, each character that is no ASCII letter or digit
as ``-``), one JSON record a line, appended as the session goes (a resume
goes on in the same file). Read from Qwen Code 0.24.4.

Every record has a ``uuid`` and a ``parentUuid`` (one chain, through every
record). ``user`` records are what a person typed (``provenance``
``real_user``; an older or handed-off file names none), ``assistant``
records one model call each (Gemini's ``parts``: text, ``thought`` text,
``functionCall``; the model; ``usageMetadata``), ``tool_result`` records a
tool's answer (``functionResponse``). ``system`` records are Qwen Code's
own: a slash command typed in the TUI (``slash_command``), a compression's
summary (``chat_compression``), both kept with the turn before them
(``injected``), never a question; the rest (telemetry, snapshots of files)
are not the conversation. A question's ``@file`` is typed as it was, the
files' text Qwen Code appended to it (from ``--- Content from referenced
files ---`` on) kept beside it (injected), as Gemini CLI's is. The turns are made as for Claude Code (agent.py);
a tool reached through Qwen Code's ``tool_call`` (as its MCP tools are) is
named by the tool it called."""

from __future__ import annotations

import json
from pathlib import Path

from ...importers import ImportedConversation
from ...importers.agent import AgentTurns
from ...importers.boundary import Loaded, Reader
from ...importers.session_tree import forks
from ...importers.shape import Anything, Count, Flag, ListOf, Maybe, Record, Tagged, Text, Time
from ...importers.tool_calls import Tools, replace, shell, write
from . import SOURCE, sessions

REFERENCED = "--- Content from referenced files ---"  # the part Qwen Code begins a question's @file text with

_PART = Record({"text": Text, "thought": Flag,
                "functionCall": Record({"id": Text, "name": Text, "args": Anything}),
                "functionResponse": Record({"id": Text, "name": Text, "response": Anything})})
_MESSAGE = Record({"role": Text, "parts": ListOf(_PART, drop=True)}, required=("parts",))
_USAGE = Record(dict.fromkeys(("promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount",
                               "cachedContentTokenCount"), Maybe(Count)))
_LINKED = {"uuid": Text, "parentUuid": Text, "timestamp": Time, "sessionId": Text, "cwd": Text}
_SAID = Record({**_LINKED, "message": _MESSAGE, "provenance": Text, "model": Text, "usageMetadata": _USAGE,
                "toolCallResult": Record({"callId": Text, "status": Text})}, required=("uuid", "message"))
_SYSTEM = Record({**_LINKED, "subtype": Text, "systemPayload": Anything}, required=("uuid",))
KEPT_SYSTEM = ("slash_command", "chat_compression")  # system records that say what happened in the session
TOOLS = Tools({"write_file": write("file_path", "content"), "edit": replace("file_path", "old_string", "new_string"),
               "replace": replace("file_path", "old_string", "new_string")},
              {"run_shell_command": shell("command")})
TYPED = "real_user"  # a user record's provenance when a person typed it


class Qwen(Reader):
    hint = "Qwen Code keeps its sessions in ~/.qwen/projects/*/chats"
    pattern = "**/*.jsonl"  # a session a file, in chats/ of a folder a project
    record = Tagged("type", {"user": _SAID, "assistant": _SAID, "tool_result": _SAID, "system": _SYSTEM},
                    other=Record(_LINKED))

    def default_path(self) -> Path:
        return sessions()

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        records = loaded.records
        first = next((r for r in records if r["type"] in ("user", "assistant")), None)
        if first is None:
            return []
        return forks(self.source, records, _is_message, lambda r: r["parentUuid"], _turns, file,
                     first["sessionId"] or file.stem, origin={"cwd": first["cwd"]})


READER = Qwen(SOURCE)


def _is_message(r: dict) -> bool:
    if r["type"] == "system":
        return r["subtype"] in KEPT_SYSTEM and _system_text(r) is not None
    return r["type"] in ("user", "assistant", "tool_result")


def _usage(used: dict) -> dict:
    """A model call's tokens in conv's classes (Gemini's counts: the prompt holds what was read from the cache)."""
    cached = min(used["cachedContentTokenCount"] or 0, used["promptTokenCount"] or 0)
    return {"prompt_tokens": (used["promptTokenCount"] or 0) - cached, "cache_write_tokens": 0,
            "cache_read_tokens": cached,
            "completion_tokens": (used["candidatesTokenCount"] or 0) + (used["thoughtsTokenCount"] or 0),
            "reasoning_tokens": used["thoughtsTokenCount"] or 0}


def _turns(chain: list[dict]) -> list:
    turns = AgentTurns(TOOLS)
    for r in chain:
        kind, time, source_id = r["type"], r["timestamp"], r["uuid"]
        if kind == "system":
            turns.injected(*_system_text(r))
            continue
        parts = r["message"]["parts"]
        if kind == "user":
            texts = [p["text"] for p in parts if p["text"] and not p["thought"]]
            at = next((n for n, t in enumerate(texts) if t.lstrip("\n").startswith(REFERENCED)), len(texts))
            text, files = "\n\n".join(texts[:at]), "".join(texts[at:])
            if r["provenance"] not in (None, TYPED):
                turns.injected(r["provenance"].replace("_", " "), "\n\n".join(texts))
            elif text.strip():
                turns.typed(text, time, source_id)
                if files:
                    turns.injected("referenced files", files)
            continue
        if kind == "assistant":
            if r["model"]:
                turns.answered_by(r["model"], time, source_id)
            if r["usageMetadata"]:
                turns.used(_usage(r["usageMetadata"]), source_id, time, source_id)
        for part in parts:
            call, answer = part["functionCall"], part["functionResponse"]
            if call:
                turns.called(call["id"] or "", _tool_name(call), call["args"], time, source_id)
            elif answer:
                status = (r["toolCallResult"] or {}).get("status")
                turns.result(answer["id"] or "", _output(answer["response"]), status not in (None, "success"),
                             time, source_id)
            elif part["text"] and part["thought"]:
                turns.thought(part["text"], time, source_id)
            elif part["text"]:
                turns.said(part["text"], time, source_id)
    return turns.done()


def _tool_name(call: dict) -> str:
    """The tool called; through Qwen Code's ``tool_call`` (its MCP tools), the one it named."""
    named = call["args"].get("name") if call["name"] == "tool_call" and isinstance(call["args"], dict) else None
    return named if isinstance(named, str) and named else call["name"] or "tool"


def _output(response) -> str:
    if isinstance(response, dict) and isinstance(response.get("output"), str):
        return response["output"]
    if isinstance(response, dict) and isinstance(response.get("error"), str):
        return response["error"]
    return json.dumps(response, ensure_ascii=False)


def _system_text(r: dict) -> tuple[str, str] | None:
    """What a kept system record says (kind, text); None for what is no event of the conversation."""
    payload = r["systemPayload"] if isinstance(r["systemPayload"], dict) else {}
    if r["subtype"] == "slash_command" and payload.get("phase") == "invocation":
        command = payload.get("rawCommand")
        return ("command", command) if isinstance(command, str) else None
    if r["subtype"] == "chat_compression":
        history = payload.get("compressedHistory")
        first = history[0] if isinstance(history, list) and history and isinstance(history[0], dict) else {}
        parts = first.get("parts") if isinstance(first.get("parts"), list) else []
        text = "\n\n".join(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))
        return "compaction summary", text or "compressed"
    return None
