"""What Qwen Code's hooks hand conv, as Claude Code's do: one JSON object on
stdin with ``session_id``, ``transcript_path``, ``cwd`` and
``hook_event_name``; Stop adds ``last_assistant_message``, SessionEnd
``reason``. At Stop the session file already holds the exchange (read from
0.24.4); the job still says which answer it must hold (``settled``)."""

from ..source import TranscriptHook


def _answers(record: dict) -> list[str]:
    """The text an assistant record says."""
    message = record.get("message")
    if record.get("type") != "assistant" or not isinstance(message, dict) or not isinstance(message.get("parts"), list):
        return []
    return [p["text"] for p in message["parts"] if isinstance(p, dict) and isinstance(p.get("text"), str)]


def _asked(record: dict) -> bool:
    return record.get("type") == "user"


_HOOK = TranscriptHook("Qwen Code", "last_assistant_message", _answers, _asked)
handed, job, session_file, settled = _HOOK.handed, _HOOK.job, _HOOK.session_file, _HOOK.settled
