"""What conv's opencode plugin hands conv when a session goes idle
(settings.py writes it): ``{session_id, cwd}`` on stdin. opencode keeps
every session in one database: the job is that database (read as ``conv
import --from opencode`` reads it, what is new of it only), once its files
have stayed as they are."""

import os

from ..contract import Hook
from ..hooks import is_token, stdin_json
from . import database


class OpencodePlugin(Hook):
    def handed(self, args: list[str], stdin) -> dict | None:
        return stdin_json(args, stdin)

    def job(self, handed: dict) -> dict | None:
        session, cwd = handed.get("session_id"), handed.get("cwd")
        if not isinstance(session, str) or not is_token(session):
            return None
        return {"file": str(database()), "cwd": cwd if isinstance(cwd, str) else None, "answer": None}

    def session_file(self, job: dict) -> str | None:
        return job["file"] if os.path.exists(job["file"]) else None


HOOK = OpencodePlugin()
