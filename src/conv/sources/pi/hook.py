"""What conv's pi extension hands conv on ``agent_end`` (settings.py writes
it): ``{session_id, session_file, cwd}`` on stdin. The file holds the whole
run by then (read from pi 0.73.1); with no answer named, the worker reads it
once it has stayed as it is."""

from ..contract import Hook
from ..hooks import stdin_json, transcript_job
from . import SOURCE


class PiExtension(Hook):
    def handed(self, args: list[str], stdin) -> dict | None:
        return stdin_json(args, stdin)

    def job(self, handed: dict) -> dict | None:
        return transcript_job(SOURCE.title, handed.get("session_file"), handed.get("cwd"), None)

    def session_file(self, job: dict) -> str | None:
        return job["file"]


HOOK = PiExtension()
