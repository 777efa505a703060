"""What Claude Code's hooks hand conv: one JSON object on stdin, with
``session_id``, ``transcript_path``, ``cwd`` and ``hook_event_name``; Stop
adds ``last_assistant_message``, SessionEnd ``reason``. In the interactive
TUI the transcript is often written after the Stop hook ran (the exchange
follows within seconds), so a job says which answer the file must hold
before it is read (``settled``)."""

from ..source import settled_answer, stdin_json, transcript_job

handed = stdin_json


def job(handed: dict) -> dict | None:
    """The session file to capture, where it was worked on, and the answer it must hold."""
    return transcript_job("Claude Code", handed.get("transcript_path"), handed.get("cwd"),
                          handed.get("last_assistant_message"))


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
