"""What Gemini CLI's hooks hand conv, as Claude Code's do: one JSON object on
stdin with ``session_id``, ``transcript_path``, ``cwd`` and
``hook_event_name``; AfterAgent (after each answer) adds ``prompt`` and
``prompt_response``, SessionEnd ``reason`` (read from 0.61.0)."""

from ..source import TranscriptHook


def _answers(record: dict) -> list[str]:
    """The text a model's message says."""
    content = record.get("content")
    if record.get("type") != "gemini":
        return []
    if isinstance(content, str):
        return [content]
    return [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)] \
        if isinstance(content, list) else []


def _asked(record: dict) -> bool:
    return record.get("type") == "user" and "id" in record


_HOOK = TranscriptHook("Gemini CLI", "prompt_response", _answers, _asked, b'"gemini"')
handed, job, session_file, settled = _HOOK.handed, _HOOK.job, _HOOK.session_file, _HOOK.settled
