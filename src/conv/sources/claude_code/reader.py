"""Reader for Claude Code's sessions: ``<project>/<session id>.jsonl`` under
``~/.claude/projects`` (``CLAUDE_CONFIG_DIR`` moves ``~/.claude``), one JSON
record a line, appended as the session goes.

Records of type ``user`` and ``assistant`` hold the messages (``message``:
role, content as text or blocks, and for answers the model and the tokens
used, repeated on every record of one model call); every record has a
``uuid`` and a ``parentUuid``, and the chain from a message to the one before
it may pass through records that are no message (``attachment``: context
Claude Code added). Other types (queue operations, request shapes, costs…)
are not the conversation and are passed over; ``summary`` records give a
title. Sidechains (a subagent's own messages) are left out: what they found
comes back to the main line as a tool result.

In conv a session becomes user turns (what was typed) and assistant turns
(everything the agent did until the next typed line): its text, each tool
call and its result as a fenced block (a long result cut in the turn, and
kept whole beside it, not sent again), and its thinking, kept with the turn
and never sent (agent.py). A rewind starts a second line from an earlier
message: the first line stays the conversation, the new one is a fork from
where it went back (branches.py), each keeping its name as the session goes on.
"""

from __future__ import annotations

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
_LINKED = {"uuid": Text, "parentUuid": Text}
_SAID = Record({**_LINKED, "timestamp": Time, "message": _MESSAGE, "isSidechain": Flag, "sessionId": Text,
                "cwd": Text, "gitBranch": Text}, required=("uuid", "message"))
SYNTHETIC = "<synthetic>"  # the model Claude Code names for a message it made itself


class ClaudeCode(Reader):
    source = "claude-code"
    hint = "Claude Code keeps its sessions in ~/.claude/projects"
    pattern = "**/*.jsonl"  # a session a file, in a folder a project
    record = Tagged("type", {"user": _SAID, "assistant": _SAID, "summary": Record({"summary": Text})},
                    other=Record(_LINKED))

    def default_path(self) -> Path:
        return sessions()

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        """One session file: its first line, and a fork for each line a rewind began (branches.py)."""
        records, by_uuid, reused = loaded.records, {}, 0
        for r in records:  # a uuid is its first record's: a later one that says otherwise is left out, counted
            if r.get("uuid") and by_uuid.setdefault(r["uuid"], r) is not r and by_uuid[r["uuid"]] != r:
                reused += 1
        messages = [r for r in records if r["type"] in ("user", "assistant") and not r["isSidechain"]
                    and by_uuid[r["uuid"]] is r]
        if not messages:
            return []
        is_message = {r["uuid"] for r in messages}
        found = lines({r["uuid"]: _message_parent(r, by_uuid, is_message) for r in messages},
                      [r["uuid"] for r in messages])
        first = messages[0]
        session_id = first["sessionId"] or file.stem
        titles = [r["summary"] for r in records if r["type"] == "summary" and r["summary"]]
        made = [(name, _turns([by_uuid[uuid] for uuid in found.path(end)])) for end, name in found.ends]
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
        if reused:
            out[0].skipped.append(f"{plural(reused, 'record')} of {file} reuse an earlier record's "
                                  "uuid with other content: left out, the first kept")
        return out


READER = ClaudeCode()


def _message_parent(r: dict, by_uuid: dict, messages: set) -> str | None:
    """The nearest earlier message, passing over records that are none."""
    seen = {r["uuid"]}  # a record that names itself as its parent has none
    at = r["parentUuid"]
    while at in by_uuid and at not in messages and at not in seen:
        seen.add(at)
        at = by_uuid[at]["parentUuid"]
    return at if at in messages and at not in seen else None


def _turns(chain: list[dict]) -> list:
    """Messages as conv's turns (agent.py): a user message with text is a typed
    line; tool results come back to the agent as user messages too."""
    turns = AgentTurns()
    for r in chain:
        message, time, source_id = r["message"], r["timestamp"], r["uuid"]
        if r["type"] == "assistant" and message["model"] == SYNTHETIC:
            continue  # Claude Code's own stand-in ("No response requested."), no model's answer
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if r["type"] == "user" and any(b["type"] in ("text", "image") for b in blocks):
            turns.typed("\n\n".join(b["text"] or "" if b["type"] == "text" else "[image]" for b in blocks),
                        time, source_id)
            continue
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


def _result_text(content) -> str:
    if isinstance(content, str) or content is None:
        return content or ""
    return "\n".join(b["text"] or "" if b["type"] == "text" else f"[{b['type']}]" for b in content)
