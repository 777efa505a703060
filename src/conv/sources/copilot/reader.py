"""Reader for GitHub Copilot CLI's sessions: ``<session id>/events.jsonl``
under ``~/.copilot/session-state`` (``COPILOT_HOME`` moves ``~/.copilot``),
one event a line (``{type, data, id, timestamp, parentId}``), appended as the
session goes (a resume goes on in the same file). Read from 1.0.102, whose
schema names 197 kinds of event; these are the conversation:

- ``session.start``: the session's id and the folder it works in;
- ``user.message``: what a person typed (``content``; what Copilot sent the
  model, ``transformedContent``, is not kept); one that a skill, another
  agent or the autopilot put there (``source``, ``isAutopilotContinuation``)
  is kept with the turn before it, ``injected``, never a question;
- ``assistant.message``: the model's text, its model and its tool requests;
  ``tool.execution_complete`` a tool's result; ``session.usage_record`` the
  tokens of one model call; ``session.compaction_complete`` the summary a
  compaction leaves (injected);
- ``tool.user_requested``: a ``!`` shell command the person ran (its
  ``local_shell`` call), and its ``isUserRequested`` result: injected, never a
  question or an answer (Copilot hands them to the model with the next
  question, which it answers; nothing answers the command itself).

Events of a sub-agent (``agentId``) are its own: what it found comes back
as a tool result. Everything else (hooks, turns starting and ending, the
system prompt, the shutdown's totals) is not the conversation. The turns are
made as for Claude Code (agent.py)."""

from __future__ import annotations

import json
from pathlib import Path

from ...importers import ImportedConversation
from ...importers.agent import AgentTurns
from ...importers.boundary import Loaded, Reader
from ...importers.shape import Anything, Count, Flag, ListOf, Maybe, Misfit, Record, Text, Time
from ...importers.tool_calls import Tools, patch, replace, shell, write
from . import SOURCE, sessions

_KINDS = {
    "session.start": Record({"sessionId": Text, "context": Record({"cwd": Text, "branch": Text})}),
    "user.message": Record({"content": Text, "source": Text, "isAutopilotContinuation": Flag}),
    "assistant.message": Record({"content": Text, "model": Text, "messageId": Text,
                                 "toolRequests": ListOf(Record({"toolCallId": Text, "name": Text,
                                                                "arguments": Anything}), drop=True)}),
    "tool.user_requested": Record({"toolCallId": Text, "arguments": Record({"command": Text})}),
    "tool.execution_complete": Record({"toolCallId": Text, "success": Flag, "isUserRequested": Flag,
                                       "shellExecution": Record({"exitCode": Anything}),
                                       "result": Record({"content": Anything}),
                                       "error": Record({"message": Text})}),
    "session.usage_record": Record({"usage": Record({
        **dict.fromkeys(("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens"),
                        Maybe(Count)), "apiCallId": Text, "model": Text})}),
    "session.compaction_complete": Record({"summaryContent": Text}),
}


def _editor(args) -> list[dict]:
    """Copilot's str_replace_editor: one tool whose ``command`` says what it does (create, str_replace, insert)."""
    command = args.get("command") if isinstance(args, dict) else None
    if command == "create":
        return write("path", "file_text")(args)
    if command in ("str_replace", "insert"):
        return replace("path", "old_str", "new_str")(args)
    return []


TOOLS = Tools({"create": write("path", "file_text"), "edit": replace("path", "old_str", "new_str"),
               "str_replace_editor": _editor, "apply_patch": patch("input")}, {"bash": shell("command")})


class _Event(Record):
    """``{type, data, id, timestamp}``, the data checked by the event's type
    (other types, and a sub-agent's events, passed over)."""

    def __init__(self):
        super().__init__({"type": Text, "id": Text, "timestamp": Time, "agentId": Text}, required=("type",))

    def check(self, value):
        checked = super().check(value)
        shape = _KINDS.get(checked["type"])
        if shape is None or checked["agentId"]:
            return None
        try:
            checked["data"] = shape.check(value.get("data"))
        except Misfit as misfit:
            raise misfit.inside("data") from None
        return checked


class Copilot(Reader):
    hint = "Copilot CLI keeps its sessions in ~/.copilot/session-state"
    pattern = "**/events.jsonl"  # a session a folder
    record = _Event()

    def default_path(self) -> Path:
        return sessions()

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        records = loaded.records
        start = next((r["data"] for r in records if r["type"] == "session.start"), None) or {}
        turns, ran = AgentTurns(TOOLS), set()  # the calls of the person's own ! commands
        for n, r in enumerate(records):
            kind, data = r["type"], r["data"]
            if kind == "tool.user_requested" or kind == "tool.execution_complete" and (
                    data["isUserRequested"] or data["toolCallId"] in ran):
                ran.add(data["toolCallId"])
                _shell(turns, kind, data)
            else:
                _event(turns, kind, data, r["timestamp"], r["id"] or f"{n}")
        found = turns.done()
        if not any(t.role == "user" for t in found):
            return []  # nobody typed anything
        context = start.get("context") or {}
        return [ImportedConversation(
            source=self.source, source_id=start.get("sessionId") or file.parent.name, title="",
            created=found[0].created, model=next((t.model for t in reversed(found) if t.model), None), turns=found,
            origin={"cwd": context.get("cwd"), "git_branch": context.get("branch")})]


READER = Copilot(SOURCE)


def _event(turns: AgentTurns, kind: str, data: dict, time, source_id: str) -> None:
    if kind == "user.message":
        text = data["content"] or ""
        if data["source"] or data["isAutopilotContinuation"]:
            turns.injected(data["source"] or "autopilot", text)
        elif text.strip():
            turns.typed(text, time, source_id)
    elif kind == "assistant.message":
        if data["model"]:
            turns.answered_by(data["model"], time, source_id)
        turns.said(data["content"] or "", time, source_id)
        for call in data["toolRequests"] or ():
            turns.called(call["toolCallId"] or "", call["name"] or "tool", call["arguments"], time, source_id)
    elif kind == "tool.execution_complete":
        turns.result(data["toolCallId"] or "", _said(data), data["success"] is False, time, source_id)
    elif kind == "session.usage_record":
        used = data["usage"] or {}
        if turns.turns:
            turns.used(_usage(used), used.get("apiCallId") or source_id, time, source_id)
    elif kind == "session.compaction_complete" and data["summaryContent"]:
        turns.injected("compaction summary", data["summaryContent"])


def _shell(turns: AgentTurns, kind: str, data: dict) -> None:
    """A ``!`` command the person ran, or what it printed: kept with the turn before it (before any, the first)."""
    if kind == "tool.user_requested":
        turns.injected("shell command", "!" + ((data["arguments"] or {}).get("command") or ""))
    else:
        code = (data["shellExecution"] or {}).get("exitCode")
        failed = f"[exit {code}]" if isinstance(code, int) and code else "[failed]" if data["success"] is False else ""
        turns.injected("shell output", "\n".join(t for t in (_said(data), failed) if t))


def _said(data: dict) -> str:
    """A tool's result as text (its error's message when it has none)."""
    content = (data["result"] or {}).get("content")
    if content is None and data["error"]:
        content = data["error"]["message"]
    return (content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)) if content else ""


def _usage(used: dict) -> dict:
    """A model call's tokens in conv's classes: Copilot's input holds the cache's, read and written (counted apart);
    its ``cost`` is premium requests, not money (left out)."""
    read, written = used.get("cacheReadTokens") or 0, used.get("cacheWriteTokens") or 0
    return {"prompt_tokens": max((used.get("inputTokens") or 0) - read - written, 0), "cache_write_tokens": written,
            "cache_read_tokens": read, "completion_tokens": used.get("outputTokens") or 0,
            "reasoning_tokens": used.get("reasoningTokens") or 0}
