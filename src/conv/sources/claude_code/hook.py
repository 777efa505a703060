"""What Claude Code's hooks hand conv: one JSON object on stdin, with
``session_id``, ``transcript_path``, ``cwd`` and ``hook_event_name``; Stop
adds ``last_assistant_message``, SessionEnd ``reason``. In the interactive
TUI the transcript is often written after the Stop hook ran (the exchange
follows within seconds), so a job says which answer the file must hold
before it is read (``settled``)."""

from ..source import TranscriptHook


def _answers(record: dict) -> list[str]:
    """The text an assistant record says."""
    if record.get("type") != "assistant" or not isinstance(record.get("message"), dict):
        return []
    content = record["message"].get("content")
    if isinstance(content, str):
        return [content]
    return [b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)] \
        if isinstance(content, list) else []


def _asked(record: dict) -> bool:
    """A question a person typed (a tool's results come back as user records too: lists of results)."""
    message = record.get("message")
    return record.get("type") == "user" and not record.get("isMeta") and isinstance(message, dict) \
        and isinstance(message.get("content"), str)


_HOOK = TranscriptHook("Claude Code", "last_assistant_message", _answers, _asked)
handed, job, session_file, settled = _HOOK.handed, _HOOK.job, _HOOK.session_file, _HOOK.settled
