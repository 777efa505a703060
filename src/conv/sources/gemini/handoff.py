"""A Gemini CLI session: ``~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl``,
its first line the session, then a message a line, resumed in that folder by
``gemini --resume ID`` (read from 0.61.0). The project's folder is the one
Gemini CLI gave the working folder (its ``.project_root`` names it); for a
folder it has not seen, one named as it names them (the folder's name,
lower case, each run of other characters as ``-``; ``-1``, ``-2``… when taken)
with the same mark, which it then takes as its own."""

import hashlib
import re
import uuid
from pathlib import Path

from ..contract import Handoff
from ..written import Written, write_lines
from . import home, sessions

ROOT_MARK = ".project_root"


def project_folder(cwd: str) -> Path:
    """The folder Gemini CLI keeps ``cwd``'s sessions in, made as it makes one when there is none."""
    for mark in sorted(sessions().glob(f"*/{ROOT_MARK}")):
        try:
            if mark.read_text(encoding="utf-8").strip() == cwd:
                return mark.parent
        except (OSError, UnicodeDecodeError):
            continue
    slug = re.sub(r"-+", "-", re.sub(r"[^a-z0-9]", "-", Path(cwd).name.lower())).strip("-") or "project"
    for n in range(1000):
        name = f"{slug}-{n}" if n else slug
        if not any((home() / base / name).exists() for base in ("tmp", "history")):
            break
    for base in ("tmp", "history"):
        (home() / base / name).mkdir(parents=True, exist_ok=True)
        (home() / base / name / ROOT_MARK).write_text(cwd, encoding="utf-8")
    return sessions() / name


class GeminiSession(Handoff):
    def write(self, turns: list, cwd: str, title: str) -> Written:
        session = str(uuid.uuid4())
        started = turns[0].created
        stamp = re.sub(r"[:]", "-", started[:16])
        path = project_folder(cwd) / "chats" / f"session-{stamp}-{session[:8]}.jsonl"
        records = [{"sessionId": session, "projectHash": hashlib.sha256(cwd.encode()).hexdigest(), "startTime": started,
                    "lastUpdated": turns[-1].created, "kind": "main"}]
        for turn in turns:
            base = {"id": str(uuid.uuid4()), "timestamp": turn.created}
            if turn.role == "user":
                records.append({**base, "type": "user", "content": [{"text": turn.content}]})
            else:
                records.append({**base, "type": "gemini", "content": turn.content, "thoughts": [],
                                "model": turn.model or "unknown"})
        write_lines(path, records)
        return Written(session, str(path), self.resume(session))

    def resume(self, session: str) -> list[str]:
        return ["gemini", "--resume", session]


HANDOFF = GeminiSession()
