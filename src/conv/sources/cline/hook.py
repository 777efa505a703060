"""What Cline's TaskComplete hook hands conv (read from Cline's code and the
CLI 3.0.65): one JSON object on stdin, ``sessionContext.rootSessionId`` the
session (its folder under the session store; ``taskId`` is a run's, not the
session's), ``workspaceRoots`` the folders, ``turn.outputText`` the answer.
Cline runs the hook about when it writes the transcript (once in three runs
before it held the answer): the worker waits for the file to hold it."""

import os
from pathlib import Path

from ..contract import Hook
from ..hooks import is_token, stdin_json
from . import SOURCE, sessions

TAIL = 64  # characters of an answer's end looked for in the transcript


class ClineHook(Hook):
    def handed(self, args: list[str], stdin) -> dict | None:
        return stdin_json(args, stdin)

    def job(self, handed: dict) -> dict | None:
        context = handed.get("sessionContext")
        session = context.get("rootSessionId") if isinstance(context, dict) else None
        if not isinstance(session, str) or not is_token(session):
            return None
        roots, turn = handed.get("workspaceRoots"), handed.get("turn")
        answer = turn.get("outputText") if isinstance(turn, dict) else None
        return {"file": str(sessions() / session / f"{session}.messages.json"),
                "cwd": roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None,
                "answer": answer[-200:] if isinstance(answer, str) and answer.strip() else None}

    def session_file(self, job: dict) -> str | None:
        return job["file"] if os.path.exists(job["file"]) else None

    def settled(self, job: dict, file: str) -> bool:
        """Whether the transcript's last answer ends as the hook said (read as the import reads it)."""
        from ...importers.boundary import fitting
        from ...importers.files import Unreadable

        reader = SOURCE.reader()
        try:
            records, _ = fitting(reader.load(Path(file)).records, reader.record)
        except (Unreadable, OSError):
            return False  # half-written: Cline writes it again whole
        said = [b["text"] or "" for r in records if r["kind"] == "message" and r["role"] == "assistant"
                and not r["aside"] for b in (r["content"] if isinstance(r["content"], list) else [])
                if b["type"] == "text"]
        wanted = " ".join((job.get("answer") or "").split())[-TAIL:]
        return bool(said) and wanted in " ".join(said[-1].split())


HOOK = ClineHook()
