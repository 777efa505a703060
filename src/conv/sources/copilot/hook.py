"""What Copilot CLI's hooks hand conv: one JSON object on stdin, camelCase
(read from 1.0.102): agentStop ``{sessionId, transcriptPath, cwd,
stopReason}``, sessionEnd ``{sessionId, cwd, reason}`` with no path, so the
session's events are found by its id. The answer is not named, and a new
session's events may be written only after its hooks ran: the worker waits
for the file, and for it to stay as it is."""

import os

from ..contract import Hook
from ..hooks import is_token, stdin_json, transcript_job
from . import SOURCE, sessions


class CopilotHooks(Hook):
    def handed(self, args: list[str], stdin) -> dict | None:
        return stdin_json(args, stdin)

    def job(self, handed: dict) -> dict | None:
        path, session = handed.get("transcriptPath"), handed.get("sessionId")
        if path is None and isinstance(session, str) and is_token(session):
            path = str(sessions() / session / "events.jsonl")
        return transcript_job(SOURCE.title, path, handed.get("cwd"), None, late=True)

    def session_file(self, job: dict) -> str | None:
        return job["file"] if os.path.exists(job["file"]) else None


HOOK = CopilotHooks()
