"""What Claude Code's hooks hand conv: one JSON object on stdin, with
``session_id``, ``transcript_path``, ``cwd`` and ``hook_event_name``; Stop
adds ``last_assistant_message``, SessionEnd ``reason``. In the interactive
TUI the transcript is often written after the Stop hook ran (the exchange
follows within seconds), so a job says which answer the file must hold
before it is read (``settled``)."""

import os

from ..source import Unusable, json_object, settled_answer

STDIN_MOST = 1_000_000  # bytes of a hook's JSON read


def handed(args: list[str], stdin) -> dict | None:
    """The hook's JSON from stdin (None: not run as Claude Code runs a hook, on a terminal)."""
    if args or (stdin is not None and stdin.isatty()):
        return None
    if stdin is None:  # run with stdin closed
        return {}
    try:
        return json_object(stdin.buffer.read(STDIN_MOST).decode("utf-8", "replace"))
    except OSError:
        return {}


def job(handed: dict) -> dict | None:
    """The session file to capture, where it was worked on, and the answer it must hold
    (None: a session that wrote nothing, as ``claude --version`` ends one)."""
    path = handed.get("transcript_path")
    if not (isinstance(path, str) and path.endswith(".jsonl") and "\0" not in path):
        raise Unusable(f"Claude Code handed over no session file ({str(path)[:200]!r}): nothing captured")
    if not os.path.exists(path):
        return None
    answer = handed.get("last_assistant_message")
    cwd = handed.get("cwd")
    return {"file": os.path.abspath(path), "cwd": cwd if isinstance(cwd, str) else None,
            "answer": answer[-200:] if isinstance(answer, str) and answer.strip() else None}


def session_file(job: dict) -> str | None:
    return job["file"]


def settled(job: dict, file: str) -> bool:
    """Whether the transcript holds the answer the hook named (any, when it named none)."""
    return settled_answer(file, job.get("answer"), _answers)


def _answers(record: dict) -> list[str]:
    """The text an assistant record says."""
    if record.get("type") != "assistant" or not isinstance(record.get("message"), dict):
        return []
    content = record["message"].get("content")
    if isinstance(content, str):
        return [content]
    return [b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)] \
        if isinstance(content, list) else []
