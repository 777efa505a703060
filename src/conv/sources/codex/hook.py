"""What Codex hands its ``notify`` program: one JSON argument, last, for
each finished turn (``{"type": "agent-turn-complete", "thread-id", "cwd",
"last-assistant-message", …}``). It names a thread, not a file: the rollout
is found by the thread's id. The TUI runs a second thread of its own (the
title it shows) that ends turns too and is never written to a rollout: a
thread with no rollout, once the wait for it is over, is nothing to capture.
A notify program the user had is kept after conv's (``--then PROGRAM
ARGS``) and run with the same JSON."""

import glob
import os

from ...home.to_say import keep_to_say
from ..contract import Hook
from ..hooks import is_token, json_object, settled_answer
from . import SOURCE, sessions
from .settings import user_program


class CodexNotify(Hook):
    def handed(self, args: list[str], stdin) -> dict | None:
        """Codex's JSON, the last argument; the user's own notify program run with it first."""
        if not args:
            return None
        _run_theirs(user_program(args[:-1]), args[-1])
        return json_object(args[-1])

    def job(self, handed: dict) -> dict | None:
        thread = handed.get("thread-id")
        if handed.get("type") != "agent-turn-complete" or not isinstance(thread, str) or not is_token(thread):
            return None
        answer, cwd = handed.get("last-assistant-message"), handed.get("cwd")
        return {"thread": thread, "home": str(sessions().parent), "cwd": cwd if isinstance(cwd, str) else None,
                "answer": answer[-200:] if isinstance(answer, str) and answer.strip() else None}

    def session_file(self, job: dict) -> str | None:
        """The thread's rollout, sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl, the newest day first."""
        found = sorted(glob.glob(os.path.join(glob.escape(job["home"]), "sessions", "*", "*", "*",
                                              f"rollout-*-{job['thread']}.jsonl")), reverse=True)
        return found[0] if found else None

    def settled(self, job: dict, file: str) -> bool:
        return settled_answer(file, job.get("answer"), SOURCE.reader(), _answers)


def _answers(r: dict) -> list[str]:
    """The text of an assistant message, as the reader checked the record."""
    p = r["payload"]
    if r["type"] != "response_item" or p["type"] != "message" or p["role"] != "assistant":
        return []
    return [c["text"] for c in p["content"] or () if c["text"]]


def _run_theirs(program: list[str], handed: str) -> None:
    """The user's own notify program, in the background, as Codex would have run it."""
    if not program:
        return
    import subprocess

    try:
        subprocess.Popen([*program, handed], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError as exc:
        keep_to_say(f"your Codex notify program {program[0]} could not run: {exc.strerror or exc}",
                    "fix it in config.toml, after conv's --then")


HOOK = CodexNotify()
