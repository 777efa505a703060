"""What Gemini CLI's hooks hand conv, as Claude Code's do: one JSON object on
stdin with ``session_id``, ``transcript_path``, ``cwd`` and
``hook_event_name``; AfterAgent (after each answer) adds ``prompt`` and
``prompt_response``, SessionEnd ``reason`` (read from 0.61.0)."""

from ..hooks import TranscriptHook
from . import SOURCE


def _answers(r: dict) -> list[str]:
    """The text a model's message says."""
    if r["kind"] != "message" or r["type"] != "gemini":
        return []
    content = r["content"]
    return [content] if isinstance(content, str) else [p["text"] for p in content or () if p["text"]]


def _asked(r: dict) -> bool:
    return r["kind"] == "message" and r["type"] == "user"


HOOK = TranscriptHook(SOURCE, "prompt_response", _answers, _asked, b'"gemini"')
