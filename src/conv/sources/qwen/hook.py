"""What Qwen Code's hooks hand conv, as Claude Code's do: one JSON object on
stdin with ``session_id``, ``transcript_path``, ``cwd`` and
``hook_event_name``; Stop adds ``last_assistant_message``, SessionEnd
``reason``. At Stop the session file already holds the exchange (read from
0.24.4); the job still says which answer it must hold (``settled``)."""

from ..hooks import TranscriptHook
from . import SOURCE


def _answers(r: dict) -> list[str]:
    """The text an assistant record says."""
    return [p["text"] for p in r["message"]["parts"] if p["text"]] if r["type"] == "assistant" else []


def _asked(r: dict) -> bool:
    return r["type"] == "user"


HOOK = TranscriptHook(SOURCE, "last_assistant_message", _answers, _asked)
