"""Reader for Claude Code's sessions: ``<project>/<session id>.jsonl`` under
``~/.claude/projects`` (``CLAUDE_CONFIG_DIR`` moves ``~/.claude``), one JSON
record a line, appended as the session goes.

Records of type ``user`` and ``assistant`` hold the messages (``message``:
role, content as text or blocks); every record has a ``uuid`` and a
``parentUuid``, and the chain from a message to the one before it may pass
through records that are no message (``attachment``: context Claude Code
added). Other types (queue operations, request shapes, costs…) are not the
conversation and are passed over; ``summary`` records give a title.
Sidechains (a subagent's own messages) are left out: what they found comes
back to the main line as a tool result.

In conv a session becomes user turns (what was typed) and assistant turns
(everything the agent did until the next typed line): its text, each tool
call and its result as a fenced block (a long result cut in the turn, and
kept whole beside it, not sent again), and its thinking, kept with the turn
and never sent (agent.py). A message that starts a second line after an
earlier one (a rewind) makes the other line a fork.
"""

from __future__ import annotations

import os
from pathlib import Path

from . import ImportedConversation, ImportedTurn, agent, files_at, first_question, shared_prefix, strictly_increasing
from .agent import AgentTurns

HINT = "Claude Code keeps its sessions in ~/.claude/projects"


def default_path() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or "~/.claude").expanduser() / "projects"


def session_files(path: Path) -> list[Path]:
    """The session files at ``path``: one, or those of a project, or of every project."""
    return files_at(path, "**/*.jsonl", HINT)


def session(file: Path) -> list[ImportedConversation]:
    """One session file: its main line, and a fork for each other line."""
    records, skipped = agent.records(file, HINT)
    by_uuid = {r["uuid"]: r for r in records if isinstance(r.get("uuid"), str)}
    messages = [r for r in records if _is_message(r)]
    if not messages:
        return []
    is_message = {r["uuid"] for r in messages}
    parent = {r["uuid"]: _message_parent(r, by_uuid, is_message) for r in messages}
    has_child = {p for p in parent.values() if p}
    leaves = [r for r in messages if r["uuid"] not in has_child]
    first = messages[0]
    session_id = str(first.get("sessionId") or file.stem)
    titles = [r.get("summary") for r in records if r.get("type") == "summary" and r.get("summary")]
    lines = []
    for leaf in sorted(leaves, key=lambda r: r is not leaves[-1]):  # the latest line first: the conversation
        chain, at = [], leaf
        while at is not None:
            chain.append(at)
            at = by_uuid.get(parent[at["uuid"]]) if parent[at["uuid"]] else None
        lines.append((leaf, strictly_increasing(_turns(list(reversed(chain))))))
    main_turns = lines[0][1]
    model = next((t.model for t in reversed(main_turns) if t.model), None)
    origin = {k: v for k, v in (("cwd", first.get("cwd")), ("git_branch", first.get("gitBranch"))) if v}
    out = []
    for n, (leaf, turns) in enumerate(lines):
        fork = n > 0
        out.append(ImportedConversation(
            source="claude-code", source_id=f"{session_id}#{leaf['uuid']}" if fork else session_id,
            title=(str(titles[-1]) if titles else first_question(turns))[:200], created=turns[0].created,
            model=model, turns=turns, fork_of=session_id if fork else None,
            fork_at=shared_prefix(main_turns, turns) if fork else None, origin=origin,
            skipped=skipped if not fork else []))
    return out


def _is_message(r: dict) -> bool:
    return (r.get("type") in ("user", "assistant") and isinstance(r.get("message"), dict)
            and isinstance(r.get("uuid"), str) and not r.get("isSidechain"))


def _message_parent(r: dict, by_uuid: dict, messages: set) -> str | None:
    """The nearest earlier message, passing over records that are none."""
    seen = set()
    at = r.get("parentUuid")
    while at in by_uuid and at not in messages and at not in seen:
        seen.add(at)
        at = by_uuid[at].get("parentUuid")
    return at if at in messages else None


def _turns(chain: list[dict]) -> list[ImportedTurn]:
    """Messages as conv's turns (agent.py): a user message with text is a typed
    line; tool results come back to the agent as user messages too."""
    turns = AgentTurns()
    for r in chain:
        content = r["message"].get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else [
            b for b in content or () if isinstance(b, dict)]
        time, source_id = str(r.get("timestamp") or ""), r["uuid"]
        if r["type"] == "user" and any(b.get("type") in ("text", "image") for b in blocks):
            turns.typed("\n\n".join(b.get("text") or "" if b.get("type") == "text" else "[image]" for b in blocks),
                        time, source_id)
            continue
        if r["type"] == "assistant" and r["message"].get("model"):
            turns.answered_by(r["message"]["model"], time, source_id)
        for b in blocks:
            kind = b.get("type")
            if kind == "text":
                turns.said(b.get("text") or "", time, source_id)
            elif kind == "thinking":
                turns.thought(b.get("thinking") or "", time, source_id)
            elif kind == "tool_use":
                turns.called(str(b.get("id")), str(b.get("name") or ""), b.get("input"), time, source_id)
            elif kind == "tool_result":
                turns.result(str(b.get("tool_use_id")), _result_text(b.get("content")), bool(b.get("is_error")),
                             time, source_id)
    return turns.done()


def _result_text(content) -> str:
    if isinstance(content, str):
        return content
    parts = [b.get("text", "") if b.get("type") == "text" else f"[{b.get('type')}]"
             for b in content or () if isinstance(b, dict)]
    return "\n".join(parts)
