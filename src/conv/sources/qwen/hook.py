"""What Qwen Code's hooks hand conv, as Claude Code's do: one JSON object on
stdin with ``session_id``, ``transcript_path``, ``cwd`` and
``hook_event_name``; Stop adds ``last_assistant_message``, SessionEnd
``reason``. At Stop the session file already holds the exchange (read from
0.24.4); the job still says which answer it must hold (``settled``)."""

from ..source import settled_answer, stdin_json, transcript_job

handed = stdin_json


def job(handed: dict) -> dict | None:
    return transcript_job("Qwen Code", handed.get("transcript_path"), handed.get("cwd"),
                          handed.get("last_assistant_message"))


def session_file(job: dict) -> str | None:
    return job["file"]


def settled(job: dict, file: str) -> bool:
    return settled_answer(file, job.get("answer"), _answers)


def _answers(record: dict) -> list[str]:
    """The text an assistant record says."""
    message = record.get("message")
    if record.get("type") != "assistant" or not isinstance(message, dict) or not isinstance(message.get("parts"), list):
        return []
    return [p["text"] for p in message["parts"] if isinstance(p, dict) and isinstance(p.get("text"), str)]
