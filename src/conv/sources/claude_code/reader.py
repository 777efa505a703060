"""Reader for Claude Code's sessions: ``<project>/<session id>.jsonl`` under
``~/.claude/projects`` (``CLAUDE_CONFIG_DIR`` moves ``~/.claude``), one JSON
record a line, appended as the session goes.

Records of type ``user`` and ``assistant`` hold the messages (``message``:
role, content as text or blocks, and for answers the model and the tokens
used, repeated on every record of one model call); every record has a
``uuid`` and a ``parentUuid``, and the chain from a message to the one before
it may pass through records that are no message (``attachment``: context
Claude Code added). A compaction (``/compact``, or when the context is full)
writes a ``system`` record ``compact_boundary`` whose ``parentUuid`` is null
and whose ``logicalParentUuid`` names the record before it: the session goes
on, and so does the conversation. Other types (queue operations, request
shapes, costs…) are not the conversation and are passed over; ``summary``
records give a title. Sidechains (a subagent's own messages) are left out:
what they found comes back to the main line as a tool result.

Not every ``user`` record is something a person typed. Claude Code writes
its own there too (read from 2.1.328's TUI): ``isMeta`` records (the caveat
before a local command, a command's expanded prompt), the wrappers of a
local command and its output (``<command-name>/clear</command-name>…``,
``<local-command-stdout>…``, and ``system`` records ``local_command``), the
``!`` shell mode's ``<bash-input>``, the summary a compaction leaves
(``isCompactSummary``), and messages from elsewhere (``origin.kind``: a
background task's ``<task-notification>``, a plugin, another agent). These
are kept with the turn before them (``injected``), never made a question, a
title or a search hit; a command the model then answers (a custom ``/review
x``) is the question, as typed. A session in which nobody typed anything
(``/clear``, then ``/exit``) is no conversation.

In conv a session becomes user turns (what was typed) and assistant turns
(everything the agent did until the next typed line): its text, each tool
call and its result as a fenced block (a long result cut in the turn, and
kept whole beside it, not sent again), and its thinking, kept with the turn
and never sent (agent.py). What a Write, an Edit or a MultiEdit changed is
kept as the answer's edits; an Edit's result record (``toolUseResult``)
says it in whole lines (``structuredPatch``: a part of a line replaced, every
match renamed), and those are kept instead. A rewind starts a second line from an earlier
message: the first line stays the conversation, the new one is a fork from
where it went back (branches.py), each keeping its name as the session goes on.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...importers import ImportedConversation
from ...importers.agent import AgentTurns
from ...importers.boundary import Loaded, Reader
from ...importers.files import json_lines
from ...importers.session_tree import forks
from ...importers.shape import Anything, Count, Flag, ListOf, Maybe, OneOf, Record, Tagged, Text, Time
from ...importers.tool_calls import Tools, hunks, replace, replace_each, shell, write
from . import SOURCE, sessions

_BLOCK = Record({"type": Text, "text": Text, "thinking": Text, "id": Text, "name": Text, "input": Anything,
                 "tool_use_id": Text, "content": OneOf(Text, ListOf(Record({"type": Text, "text": Text})),
                                                       what="text or a list of blocks"),
                 "is_error": Flag}, required=("type",))
_USAGE = Record({**dict.fromkeys(("input_tokens", "output_tokens", "cache_creation_input_tokens",
                                  "cache_read_input_tokens"), Maybe(Count)),
                 "cache_creation": Record(dict.fromkeys(("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"),
                                                        Maybe(Count)))})
_MESSAGE = Record({"role": Text, "content": OneOf(Text, ListOf(_BLOCK), what="text or a list of blocks"),
                   "model": Text, "id": Text, "usage": _USAGE}, required=("content",))
_LINKED = {"uuid": Text, "parentUuid": Text, "logicalParentUuid": Text}
_WHERE = {"timestamp": Time, "isSidechain": Flag, "sessionId": Text, "cwd": Text, "gitBranch": Text}
_SAID = Record({**_LINKED, **_WHERE, "message": _MESSAGE, "isMeta": Flag, "isCompactSummary": Flag,
                "isVisibleInTranscriptOnly": Flag, "origin": Anything, "requestId": Text, "toolUseResult": Anything},
               required=("uuid", "message"))
_SYSTEM = Record({**_LINKED, **_WHERE, "subtype": Text, "content": Text, "compactMetadata": Anything},
                 required=("uuid",))
SYNTHETIC = "<synthetic>"  # the model Claude Code names for a message it made itself
# The wrappers Claude Code puts around what it writes as a user record itself -> what conv calls it.
WRAPPED = {"command-name": "command", "command-message": "command", "command-args": "command",
           "local-command-stdout": "command output", "local-command-stderr": "command output",
           "local-command-caveat": "caveat", "bash-input": "shell command", "bash-stdout": "shell output",
           "bash-stderr": "shell output", "task-notification": "task notification", "user-memory-input": "memory",
           "teammate-message": "teammate message", "cross-session-message": "message from another session"}
_WRAPPER = re.compile(r"\s*<(" + "|".join(WRAPPED) + r")>")
# origin.kind of a user record that no person typed (a person's is "human"; an older Claude Code names none)
NOT_TYPED = ("task-notification", "auto-continuation", "coordinator", "peer", "plugin", "observer-activity", "channel")
KEPT_SYSTEM = ("local_command", "compact_boundary")  # system records that say what happened in the session
_SHELL = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)
_COMMAND_ONLY = re.compile(r"(?:\s*<(command-(?:message|name|args))>.*?</\1>)+\s*", re.S)
_COMMAND = re.compile(r"<command-name>\s*(.*?)\s*</command-name>.*?(?:<command-args>(.*?)</command-args>|$)", re.S)
TOOLS = Tools({"Write": write("file_path", "content"), "Edit": replace("file_path", "old_string", "new_string"),
               "MultiEdit": replace_each("file_path", "edits", "old_string", "new_string")},
              {"Bash": shell("command")})
SUBAGENTS = "subagents"  # <session>/subagents/agent-*.jsonl: a sub-agent's own records (Claude Code 2.x)


class ClaudeCode(Reader):
    hint = "Claude Code keeps its sessions in ~/.claude/projects"
    pattern = "**/*.jsonl"  # a session a file, in a folder a project
    record = Tagged("type", {"user": _SAID, "assistant": _SAID, "system": _SYSTEM,
                             "summary": Record({"summary": Text})}, other=Record(_LINKED))

    def default_path(self) -> Path:
        return sessions()

    def files(self, path: Path) -> list[Path]:
        """The session files (a sub-agent's, under a session's own folder, is read with its session)."""
        return [f for f in super().files(path) if f.parent.name != SUBAGENTS]

    def load(self, file: Path) -> Loaded:
        """The session's records, then its sub-agents' (``<session>/subagents/``), each marked as a sidechain."""
        records = json_lines(file)
        for agent in sorted((file.parent / file.stem / SUBAGENTS).glob("*.jsonl")):
            records += [{**r, "isSidechain": True} if isinstance(r, dict) else r for r in json_lines(agent)]
        return Loaded(records)

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        """One session file: its first line, and a fork for each line a rewind began (session_tree.py)."""
        records = loaded.records
        first = next((r for r in records if r["type"] in ("user", "assistant") and not r["isSidechain"]), None)
        if first is None:
            return []
        titles = [r["summary"] for r in records if r["type"] == "summary" and r["summary"]]
        aside = [r for r in records if r["type"] in ("user", "assistant") and r["isSidechain"]]
        return forks(self.source, records, _is_message, _parent, lambda chain: _turns(chain, aside), file,
                     first["sessionId"] or file.stem, titles[-1] if titles else "",
                     {"cwd": first["cwd"], "git_branch": first["gitBranch"]})


READER = ClaudeCode(SOURCE)


def _is_message(r: dict) -> bool:
    """A message of the main line, or a system record that says what happened in the session."""
    return (r["type"] in ("user", "assistant") or (r["type"] == "system" and r["subtype"] in KEPT_SYSTEM)) \
        and not r["isSidechain"]


def _parent(r: dict) -> str | None:
    """The record before it (past a compaction, the one it names)."""
    return r["parentUuid"] or r.get("logicalParentUuid")


TYPED, ANSWER, PART = "typed", "answer", None  # PART: more of the answer under way (a tool's result)
STAND_IN = "stand-in"  # Claude Code's own message in the model's place ("No response requested.")


def _kind(r: dict) -> str | None:
    """What a record is: TYPED (a person's line), ANSWER (the model's), PART,
    STAND_IN, or the name of what the tool injected."""
    if r["type"] == "assistant":
        return ANSWER if r["message"]["model"] != SYNTHETIC else STAND_IN
    if r["type"] == "system":
        return "compaction" if r["subtype"] == "compact_boundary" else "command output"
    origin = r["origin"].get("kind") if isinstance(r["origin"], dict) else None
    text = _text(r)
    if r["isCompactSummary"]:
        return "compaction summary"
    if r["isMeta"]:
        return "caveat" if text.lstrip().startswith("<local-command-caveat>") else "meta"
    if origin == "human":  # what a person typed, whatever it begins with (a pasted log's tag)
        return TYPED if _typed(r) else PART
    if origin in NOT_TYPED:
        return str(origin).replace("-", " ")
    wrapped = _WRAPPER.match(text)
    if wrapped:
        return WRAPPED[wrapped.group(1)]
    if r["isVisibleInTranscriptOnly"]:
        return "transcript only"
    return TYPED if _typed(r) else PART


def _typed(r: dict) -> bool:
    content = r["message"]["content"]
    return isinstance(content, str) or any(b["type"] in ("text", "image") for b in content)


def _text(r: dict) -> str:
    """A user or system record's text (its text blocks), "" when it has none."""
    if r["type"] == "system":
        return r["content"] or ""
    content = r["message"]["content"]
    if isinstance(content, str):
        return content
    return "\n\n".join(b["text"] or "" if b["type"] == "text" else "[image]" for b in content
                        if b["type"] in ("text", "image"))


def _command(text: str) -> str:
    """A slash command or a ``!`` shell command as the person typed it ("/review src", "!ls"), from its wrapper."""
    shell = _SHELL.search(text)
    if shell:
        return "!" + shell.group(1).strip()
    found = _COMMAND.search(text)
    return " ".join(part for part in (found.group(1), (found.group(2) or "").strip()) if part) if found else text


def _answered(kinds: list, at: int) -> bool:
    """Whether the model answers the record at ``at`` before anyone types again."""
    for kind in kinds[at + 1:]:
        if kind in (TYPED, "command", "shell command"):
            return False
        if kind == ANSWER:
            return True
    return False


def _turns(chain: list[dict], aside: list[dict]) -> list:
    """Messages as conv's turns (agent.py): a user message with text is a typed
    line; tool results come back to the agent as user messages too. A
    sub-agent's records (``aside``) count with the answer it worked for: its
    tokens, and what its tool calls changed."""
    turns, kinds = AgentTurns(TOOLS), [_kind(r) for r in chain]
    for at, (r, kind) in enumerate(zip(chain, kinds)):
        time, source_id = r["timestamp"], r["uuid"]
        if kind in ("command", "shell command") and _answered(kinds, at):
            turns.typed(_command(_text(r)), time, source_id)  # what the model then answers: asked, as typed
            continue
        if kind == TYPED:
            text = _text(r)  # a slash command typed is recorded in its wrapper alone: shown as typed
            turns.typed(_command(text) if _COMMAND_ONLY.fullmatch(text) else text, time, source_id)
            continue
        if kind == STAND_IN:
            continue  # no model's answer
        if kind not in (ANSWER, PART):
            turns.injected(kind, _injected_text(r))
            continue
        message = r["message"]
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if r["type"] == "assistant" and message["model"]:
            turns.answered_by(message["model"], time, source_id)
        if r["type"] == "assistant" and message["usage"]:
            turns.used(_usage(message["usage"]), _call(r), time, source_id)
        for b in blocks:
            kind = b["type"]
            if kind == "text":
                turns.said(b["text"] or "", time, source_id)
            elif kind == "thinking":
                turns.thought(b["thinking"] or "", time, source_id)
            elif kind == "tool_use":
                turns.called(b["id"] or "", b["name"] or "", b["input"], time, source_id)
            elif kind == "tool_result":
                turns.result(b["tool_use_id"] or "", _result_text(b["content"]), bool(b["is_error"]), time,
                             source_id)
                done = r["toolUseResult"] if isinstance(r["toolUseResult"], dict) else {}
                turns.reported(b["tool_use_id"] or "", hunks(done.get("filePath"), done.get("structuredPatch")))
    _aside(turns, aside)
    return turns.done()


def _aside(turns: AgentTurns, aside: list[dict]) -> None:
    """A sub-agent's model calls and tool calls, with the answer under way when each ran."""
    for r in aside:
        content, time = r["message"]["content"], r["timestamp"]
        if r["type"] == "assistant" and r["message"]["usage"]:
            turns.used_aside(_usage(r["message"]["usage"]), _call(r), time)
        for b in content if isinstance(content, list) else ():
            if b["type"] == "tool_use" and (answer := turns.answer_at(time)) is not None:
                turns.called(b["id"] or "", b["name"] or "", b["input"], time, r["uuid"], turn=answer)
            elif b["type"] == "tool_result" and b["is_error"]:
                turns.failed(b["tool_use_id"] or "")


def _usage(used: dict) -> dict:
    """A model call's tokens in conv's classes: a ``cache_creation`` object's
    5-minute and 1-hour parts are the cache written (else its one count)."""
    parts = used["cache_creation"]
    written = (parts["ephemeral_5m_input_tokens"] or 0) + (parts["ephemeral_1h_input_tokens"] or 0) if parts \
        and (parts["ephemeral_5m_input_tokens"] is not None or parts["ephemeral_1h_input_tokens"] is not None) \
        else used["cache_creation_input_tokens"] or 0
    return {"prompt_tokens": used["input_tokens"] or 0, "cache_write_tokens": written,
            "cache_read_tokens": used["cache_read_input_tokens"] or 0, "completion_tokens": used["output_tokens"] or 0}


def _call(r: dict) -> str:
    """A model call's id: its message's and its request's (Claude Code writes one record a content block)."""
    return f"{r['message']['id'] or r['uuid']}/{r['requestId'] or ''}"


def _injected_text(r: dict) -> str:
    """What an injected record holds, as text (a compaction: what triggered it, and the tokens before)."""
    if r["type"] == "system" and r["subtype"] == "compact_boundary":
        meta = r["compactMetadata"] if isinstance(r["compactMetadata"], dict) else {}
        said = ", ".join(f"{key} {meta[key]}" for key in ("trigger", "preTokens", "postTokens")
                         if isinstance(meta.get(key), (str, int)))
        return (r["content"] or "compacted") + (f" ({said})" if said else "")
    return _text(r)


def _result_text(content) -> str:
    if isinstance(content, str) or content is None:
        return content or ""
    return "\n".join(b["text"] or "" if b["type"] == "text" else f"[{b['type']}]" for b in content)
