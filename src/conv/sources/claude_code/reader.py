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
and never sent (agent.py). A rewind starts a second line from an earlier
message: the first line stays the conversation, the new one is a fork from
where it went back (branches.py), each keeping its name as the session goes on.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...format.words import plural
from ...importers import ImportedConversation, shared_prefix
from ...importers.agent import AgentTurns
from ...importers.boundary import Loaded, Reader
from ...importers.branches import lines, said_of
from ...importers.shape import Anything, Count, Flag, ListOf, Maybe, OneOf, Record, Tagged, Text, Time
from . import sessions

_BLOCK = Record({"type": Text, "text": Text, "thinking": Text, "id": Text, "name": Text, "input": Anything,
                 "tool_use_id": Text, "content": OneOf(Text, ListOf(Record({"type": Text, "text": Text})),
                                                       what="text or a list of blocks"),
                 "is_error": Flag}, required=("type",))
_USAGE = Record(dict.fromkeys(("input_tokens", "output_tokens", "cache_creation_input_tokens",
                               "cache_read_input_tokens"), Maybe(Count)))
_MESSAGE = Record({"role": Text, "content": OneOf(Text, ListOf(_BLOCK), what="text or a list of blocks"),
                   "model": Text, "id": Text, "usage": _USAGE}, required=("content",))
_LINKED = {"uuid": Text, "parentUuid": Text, "logicalParentUuid": Text}
_WHERE = {"timestamp": Time, "isSidechain": Flag, "sessionId": Text, "cwd": Text, "gitBranch": Text}
_SAID = Record({**_LINKED, **_WHERE, "message": _MESSAGE, "isMeta": Flag, "isCompactSummary": Flag,
                "isVisibleInTranscriptOnly": Flag, "origin": Anything}, required=("uuid", "message"))
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


class ClaudeCode(Reader):
    source = "claude-code"
    hint = "Claude Code keeps its sessions in ~/.claude/projects"
    pattern = "**/*.jsonl"  # a session a file, in a folder a project
    record = Tagged("type", {"user": _SAID, "assistant": _SAID, "system": _SYSTEM,
                             "summary": Record({"summary": Text})}, other=Record(_LINKED))

    def default_path(self) -> Path:
        return sessions()

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        """One session file: its first line, and a fork for each line a rewind began (branches.py)."""
        records, by_uuid, reused = loaded.records, {}, 0
        for r in records:  # a uuid is its first record's: a later one that says otherwise is left out, counted
            if r.get("uuid") and by_uuid.setdefault(r["uuid"], r) is not r and by_uuid[r["uuid"]] != r:
                reused += 1
        messages = [r for r in records if (r["type"] in ("user", "assistant")
                                           or (r["type"] == "system" and r["subtype"] in KEPT_SYSTEM))
                    and not r["isSidechain"] and by_uuid[r["uuid"]] is r]
        if not any(_kind(r) == TYPED for r in messages):
            return []  # nobody typed anything (/clear, then /exit): no conversation
        is_message = {r["uuid"] for r in messages}
        found = lines({r["uuid"]: _message_parent(r, by_uuid, is_message) for r in messages},
                      [r["uuid"] for r in messages])
        first = next(r for r in messages if r["type"] != "system")
        session_id = first["sessionId"] or file.stem
        titles = [r["summary"] for r in records if r["type"] == "summary" and r["summary"]]
        made = [(name, turns) for end, name in found.ends
                if (turns := _turns([by_uuid[uuid] for uuid in found.path(end)]))]
        if not made:
            return []
        empty = [n for n, (_, turns) in enumerate(made) if any(  # a line all of whose turns another holds
            len(other) > len(turns) and shared_prefix(turns, other) >= len(turns) for _, other in made)]
        made = [line for n, line in enumerate(made) if n not in empty]
        made[0] = ("", made[0][1])  # the first line left is the conversation
        main_turns = made[0][1]
        model = next((t.model for t in reversed(main_turns) if t.model), None)
        origin = {"cwd": first["cwd"], "git_branch": first["gitBranch"]}
        out = [ImportedConversation(
            source=self.source, source_id=f"{session_id}#{name}" if name else session_id,
            title=titles[-1] if titles else "", created=turns[0].created if turns else None,
            model=model, turns=turns, fork_of=session_id if name else None,
            fork_at=shared_prefix(main_turns, turns) if name else None, origin=origin)
            for name, turns in made]
        out[0].skipped += said_of(found, f"session {session_id}")
        if empty:
            out[0].skipped.append(f"{plural(len(empty), 'line')} of session {session_id} in {file} held no turn of "
                                  "its own (an empty or unreadable message): left out")
        if reused:
            out[0].skipped.append(f"{plural(reused, 'record')} of {file} reuse an earlier record's "
                                  "uuid with other content: left out, the first kept")
        return out


READER = ClaudeCode()


def _message_parent(r: dict, by_uuid: dict, messages: set) -> str | None:
    """The nearest earlier message, passing over records that are none (and
    over a compaction, to the record it names as the one before it)."""
    seen = {r["uuid"]}  # a record that names itself as its parent has none
    at = _parent(r)
    while at in by_uuid and at not in messages and at not in seen:
        seen.add(at)
        at = _parent(by_uuid[at])
    return at if at in messages and at not in seen else None


def _parent(r: dict) -> str | None:
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


def _turns(chain: list[dict]) -> list:
    """Messages as conv's turns (agent.py): a user message with text is a typed
    line; tool results come back to the agent as user messages too."""
    turns, kinds = AgentTurns(), [_kind(r) for r in chain]
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
            used = message["usage"]
            prompt = sum(used[k] or 0 for k in ("input_tokens", "cache_creation_input_tokens",
                                                 "cache_read_input_tokens"))
            turns.used(prompt, used["output_tokens"] or 0, message["id"] or source_id, time, source_id)
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
    return turns.done()


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
