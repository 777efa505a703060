"""What Gemini CLI's hooks hand conv, as Claude Code's do: one JSON object on
stdin with ``session_id``, ``transcript_path``, ``cwd`` and
``hook_event_name``; AfterAgent (after each answer) adds ``prompt`` and
``prompt_response``, SessionEnd ``reason`` (read from 0.61.0)."""

from ..source import settled_answer, stdin_json, transcript_job

handed = stdin_json


def job(handed: dict) -> dict | None:
    return transcript_job("Gemini CLI", handed.get("transcript_path"), handed.get("cwd"),
                          handed.get("prompt_response"))


def session_file(job: dict) -> str | None:
    return job["file"]


def settled(job: dict, file: str) -> bool:
    return settled_answer(file, job.get("answer"), _answers, b'"gemini"')


def _answers(record: dict) -> list[str]:
    """The text a model's message says."""
    content = record.get("content")
    if record.get("type") != "gemini":
        return []
    if isinstance(content, str):
        return [content]
    return [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)] \
        if isinstance(content, list) else []
