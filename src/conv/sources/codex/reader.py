"""Reader for Codex CLI's sessions: ``sessions/YYYY/MM/DD/rollout-*.jsonl``
under ``~/.codex`` (``CODEX_HOME`` moves it), one JSON record a line
(``{timestamp, type, payload}``), appended as the session goes; a resumed
session goes on in its file.

``session_meta`` names the session (its id, cwd, git branch); ``turn_context``
the model; ``response_item`` records are what went to and came from the
model: messages (the user's, the assistant's; the developer's instructions,
Codex's system prompt, are not the conversation; what Codex writes as a user
message itself, in one of its own wrappers (``<environment_context>``, an
AGENTS.md's instructions, ``<turn_aborted>``…), is kept with the turn before
it, ``injected``, and never a question), ``reasoning`` (its summary is kept as thinking),
tool calls (``function_call``, ``custom_tool_call``, ``local_shell_call``)
and their outputs. The tokens each model call used come as
``token_usage_record`` (newer Codex, one a response) or as ``event_msg``
``token_count`` (its ``last_token_usage``; one whose ``total_token_usage``
is the one before's is that count again, written for the screen or a
fork's replay, and passed over); other ``event_msg`` records
repeat the conversation for the screen and are passed over. The turns are
made as for Claude Code (agent.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ...importers import ImportedConversation
from ...importers.agent import AgentTurns
from ...importers.boundary import Loaded, Reader
from ...importers.shape import Anything, Count, ListOf, Maybe, Misfit, Record, Text, Time
from ...importers.tool_calls import Tools, codex_shell, patch, shell
from . import SOURCE, sessions

# What Codex itself writes as a user message (read from 0.169.0): its wrapper -> what conv calls it
INJECTED = {"environment_context": "environment", "user_instructions": "instructions", "turn_aborted": "turn aborted",
            "user_shell_command": "shell command", "subagent_notification": "subagent notification",
            "context_window_reminder": "context window", "collaboration_mode": "collaboration mode",
            "user_action": "user action"}
_INJECTED = re.compile(r"\s*(?:<(" + "|".join(INJECTED) + r")>|(# AGENTS\.md instructions for ))")
_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")
_TOKENS = Record(dict.fromkeys(("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens",
                                "reasoning_output_tokens"), Maybe(Count)))
_PATCHES, _SHELL = codex_shell("command")  # shell's {"command": [...]}: apply_patch run as a program, or a command
TOOLS = Tools({"apply_patch": patch(), "shell": _PATCHES, "local_shell": _PATCHES, "container.exec": _PATCHES},
              {"shell": _SHELL, "local_shell": _SHELL, "container.exec": _SHELL, "exec_command": shell("cmd")})
_PARTS = ListOf(Record({"text": Text}), drop=True)
_KINDS = {
    "session_meta": Record({"id": Text, "cwd": Text, "git": Record({"branch": Text})}),
    "turn_context": Record({"model": Text}),
    "response_item": Record({"type": Text, "role": Text, "content": _PARTS, "id": Text, "summary": _PARTS,
                             "call_id": Text, "name": Text, "namespace": Text, "arguments": Anything, "input": Anything,
                             "action": Anything, "output": Anything}),
    "event_msg": Record({"type": Text, "info": Record({"last_token_usage": _TOKENS, "total_token_usage": _TOKENS}),
                         "item": Record({"type": Text, "content": _PARTS})}),
    "token_usage_record": Record({"response_id": Text, "usage": _TOKENS}),
    "compacted": Record({"message": Text}),
}
_EVENTS = ("token_count", "item_completed")  # of the screen's events: the tokens used, and what was typed and said


class _Rollout(Record):
    """``{timestamp, type, payload}``, the payload checked by the record's type (other types passed over)."""

    def __init__(self):
        super().__init__({"timestamp": Time, "type": Text}, required=("type",))

    def check(self, value):
        checked = super().check(value)
        shape, payload = _KINDS.get(checked["type"]), value.get("payload")
        if shape is None or (checked["type"] == "event_msg"
                             and not (isinstance(payload, dict) and payload.get("type") in _EVENTS)):
            return None  # not the conversation (event_msg repeats it for the screen)
        try:
            checked["payload"] = shape.check(payload)
        except Misfit as misfit:
            raise misfit.inside("payload") from None
        return checked


class Codex(Reader):
    hint = "Codex keeps its sessions in ~/.codex/sessions"
    pattern = "**/*.jsonl"  # a session a file, in folders by date
    record = _Rollout()

    def default_path(self) -> Path:
        return sessions()

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        records = loaded.records
        meta = next((r["payload"] for r in records if r["type"] == "session_meta"), None) or {}
        per_response = any(r["type"] == "token_usage_record" for r in records)
        shown = _shown(records)
        turns, model, last_total = AgentTurns(TOOLS), None, None
        for n, r in enumerate(records):
            p, kind, time, source_id = r["payload"], r["type"], r["timestamp"], f"{n}"
            if kind == "turn_context":
                model = p["model"] or model
            elif kind == "token_usage_record" or (kind == "event_msg" and p["type"] == "token_count"
                                                   and not per_response):
                used = p["usage"] if kind == "token_usage_record" else (p["info"] or {}).get("last_token_usage")
                total = (p["info"] or {}).get("total_token_usage") if kind == "event_msg" else None
                if total is not None and total == last_total:
                    continue  # the same count again (a screen's refresh, a fork replaying its parent): no new call
                last_total = total if total is not None else last_total
                if used and turns.turns:
                    turns.used(_usage(used), p.get("response_id") or source_id, time, source_id)
            elif kind == "response_item":
                model = _item(turns, p, model, time, source_id, shown)
            elif kind == "compacted":
                turns.injected("compaction", p["message"] or "")
        found = turns.done()
        if not any(t.role == "user" for t in found):
            return []  # nobody asked anything (what Codex wrote of the question could not be read)
        git = meta.get("git") or {}
        return [ImportedConversation(
            source=self.source, source_id=meta.get("id") or file.stem, title="", created=found[0].created,
            model=model, turns=found, origin={"cwd": meta.get("cwd"), "git_branch": git.get("branch")})]


def _usage(used: dict) -> dict:
    """A response's tokens in conv's classes: Codex's input holds what was read from and written to the cache
    (counted apart), its output the reasoning (said apart, as ccusage reads it)."""
    total = used["input_tokens"] or 0
    read = min(used["cached_input_tokens"] or 0, total)
    written = min(used["cache_write_input_tokens"] or 0, total - read)
    return {"prompt_tokens": total - read - written, "cache_write_tokens": written, "cache_read_tokens": read,
            "completion_tokens": used["output_tokens"] or 0, "reasoning_tokens": used["reasoning_output_tokens"] or 0}


def _shown(records: list) -> dict[str, set] | None:
    """What the screen showed as typed (UserMessage) and said (AgentMessage),
    by text; None for a rollout that records neither (an older Codex)."""
    found: dict[str, set] = {"UserMessage": set(), "AgentMessage": set()}
    for r in records:
        item = r["payload"].get("item") if r["type"] == "event_msg" else None
        if item and item["type"] in found:
            found[item["type"]].add(_joined(item["content"]))
    return found if any(found.values()) else None


def _joined(parts) -> str:
    return "\n\n".join(c["text"] or "" for c in parts or ())


def _item(turns: AgentTurns, p: dict, model, time, source_id: str, shown: dict | None):
    """One response item into the turns; the model the answer is by. What
    the screen showed as typed is a question, as said an answer; the rest of
    the user's and the assistant's messages Codex wrote itself (its context,
    a compaction's summary): kept, injected. An older rollout, with no such
    events, is read by Codex's wrappers."""
    kind = p["type"]
    if kind == "message" and p["role"] == "user":
        text = _joined(p["content"])
        wrapped = _INJECTED.match(text)
        if shown is not None and text not in shown["UserMessage"] or shown is None and wrapped:
            turns.injected(INJECTED.get(wrapped.group(1), "instructions") if wrapped else "context", text)
        elif text.strip():
            turns.typed(text, time, p["id"] or source_id)
    elif kind == "message" and p["role"] == "assistant":
        text = _joined(p["content"])
        if shown is not None and text not in shown["AgentMessage"]:
            turns.injected("compaction summary", text)
            return model
        if model:
            turns.answered_by(model, time, source_id)
        turns.said(text, time, p["id"] or source_id)
    elif kind == "reasoning":
        turns.thought("\n\n".join(s["text"] or "" for s in p["summary"] or ()), time, source_id)
    elif kind in _CALLS:
        arguments = p["arguments"] if p["arguments"] is not None else (
            p["input"] if p["input"] is not None else p["action"])
        name = p["name"] or "shell"
        turns.called(p["call_id"] or p["id"] or "", f"{p['namespace']}__{name}" if p["namespace"] else name,
                     arguments, time, source_id)
    elif kind in _OUTPUTS:
        output = p["output"]
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
        turns.result(p["call_id"] or "", text, _failed(text), time, source_id)
    return model


_FAILED = re.compile(r"Process exited with code [1-9]|Exit code: [1-9]|^apply_patch verification failed|^Failed to ",
                     re.M)


def _failed(text: str) -> bool:
    """Whether a tool's output says it failed: a shell's non-zero exit (``Process exited with code N`` in its text,
    or its JSON's ``metadata.exit_code``), a patch that did not apply."""
    try:
        said = json.loads(text)
    except (ValueError, RecursionError):
        return bool(_FAILED.search(text[:1000]))
    meta = said.get("metadata") if isinstance(said, dict) else None
    code = meta.get("exit_code") if isinstance(meta, dict) else None
    return isinstance(code, int) and not isinstance(code, bool) and code != 0


READER = Codex(SOURCE)
