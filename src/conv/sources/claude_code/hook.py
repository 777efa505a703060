"""What Claude Code's hooks hand conv: one JSON object on stdin, with
``session_id``, ``transcript_path``, ``cwd`` and ``hook_event_name``; Stop
adds ``last_assistant_message``, SessionEnd ``reason``. In the interactive
TUI the transcript is often written after the Stop hook ran (the exchange
follows within seconds), so a job says which answer the file must hold
before it is read (``settled``), a record read as the reader reads it."""

from ..hooks import TranscriptHook
from . import SOURCE


def _answers(r: dict) -> list[str]:
    """The text an assistant record says."""
    if r["type"] != "assistant":
        return []
    content = r["message"]["content"]
    return [content] if isinstance(content, str) else [b["text"] for b in content if b["text"]]


def _asked(r: dict) -> bool:
    """A question a person typed (a tool's results come back as user records too: lists of results)."""
    return r["type"] == "user" and not r["isMeta"] and isinstance(r["message"]["content"], str)


HOOK = TranscriptHook(SOURCE, "last_assistant_message", _answers, _asked)
