"""Reader for Codex CLI's sessions: ``sessions/YYYY/MM/DD/rollout-*.jsonl``
under ``~/.codex`` (``CODEX_HOME`` moves it), one JSON record a line
(``{timestamp, type, payload}``), appended as the session goes; a resumed
session goes on in its file.

``session_meta`` names the session (its id, cwd, git branch); ``turn_context``
the model; ``response_item`` records are what went to and came from the
model: messages (the user's, the assistant's; the developer's instructions
and the context Codex adds as a user message in one XML-like element are
not the conversation), ``reasoning`` (its summary is kept as thinking),
tool calls (``function_call``, ``custom_tool_call``, ``local_shell_call``)
and their outputs. ``event_msg`` records repeat them for the screen and are
passed over. The turns are made as for Claude Code (agent.py).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from . import ImportedConversation, agent, files_at, first_question, strictly_increasing
from .agent import AgentTurns

HINT = "Codex keeps its sessions in ~/.codex/sessions"
_CONTEXT = re.compile(r"\s*<([a-z_]+)>.*</\1>\s*", re.S)  # <environment_context>…</environment_context> and the like
_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def default_path() -> Path:
    return Path(os.environ.get("CODEX_HOME") or "~/.codex").expanduser() / "sessions"


def session_files(path: Path) -> list[Path]:
    return files_at(path, "**/*.jsonl", HINT)


def session(file: Path) -> list[ImportedConversation]:
    records, skipped = agent.records(file, HINT)
    records = [r for r in records if isinstance(r.get("payload"), dict)]
    meta = next((r["payload"] for r in records if r.get("type") == "session_meta"), {})
    turns, model = AgentTurns(), None
    for n, r in enumerate(records):
        p, time, source_id = r["payload"], str(r.get("timestamp") or ""), f"{n}"
        if r.get("type") == "turn_context":
            model = p.get("model") or model
        if r.get("type") != "response_item":
            continue
        kind = p.get("type")
        if kind == "message" and p.get("role") == "user":
            text = "\n\n".join(c.get("text") or "" for c in p.get("content") or () if isinstance(c, dict))
            if text.strip() and not _CONTEXT.fullmatch(text):
                turns.typed(text, time, str(p.get("id") or source_id))
        elif kind == "message" and p.get("role") == "assistant":
            if model:
                turns.answered_by(model, time, source_id)
            turns.said("\n\n".join(c.get("text") or "" for c in p.get("content") or () if isinstance(c, dict)),
                       time, str(p.get("id") or source_id))
        elif kind == "reasoning":
            turns.thought("\n\n".join(s.get("text") or "" for s in p.get("summary") or () if isinstance(s, dict)),
                          time, source_id)
        elif kind in _CALLS:
            arguments = p.get("arguments") if "arguments" in p else p.get("input", p.get("action"))
            turns.called(str(p.get("call_id") or p.get("id")), str(p.get("name") or "shell"),
                         arguments, time, source_id)
        elif kind in _OUTPUTS:
            output = p.get("output")
            text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
            turns.result(str(p.get("call_id")), text, False, time, source_id)
    found = strictly_increasing(turns.done())
    if not found:
        return []
    git = meta.get("git") if isinstance(meta.get("git"), dict) else {}
    origin = {k: v for k, v in (("cwd", meta.get("cwd")), ("git_branch", git.get("branch"))) if v}
    return [ImportedConversation(
        source="codex", source_id=str(meta.get("id") or file.stem), title=first_question(found),
        created=found[0].created, model=model, turns=found, origin=origin, skipped=skipped)]
