"""A Qwen Code session: ``~/.qwen/projects/<the folder's name>/chats/<session
id>.jsonl`` (QWEN_HOME moves ~/.qwen), user and assistant records chained
by ``parentUuid``, resumed in that folder by ``qwen --resume ID`` (read from
0.24.4: a file written by another program is taken as its own)."""

import re
import uuid

from ..contract import Handoff
from ..written import Written, write_lines
from . import sessions


def project_folder(cwd: str) -> str:
    """The folder name Qwen Code keeps a working folder's sessions under (its
    sanitizeCwd, 0.24.4): each character that is not an ASCII letter or digit as ``-``."""
    return re.sub(r"[^a-zA-Z0-9]", "-", cwd)


class QwenSession(Handoff):
    def write(self, turns: list, cwd: str, title: str) -> Written:
        session = str(uuid.uuid4())
        path = sessions() / project_folder(cwd) / "chats" / f"{session}.jsonl"
        records, parent = [], None
        for turn in turns:
            mark = str(uuid.uuid4())
            base = {"uuid": mark, "parentUuid": parent, "sessionId": session, "timestamp": turn.created, "cwd": cwd}
            if turn.role == "user":
                records.append({**base, "type": "user", "provenance": "real_user",
                                "message": {"role": "user", "parts": [{"text": turn.content}]}})
            else:
                records.append({**base, "type": "assistant", "provenance": "assistant_output",
                                "model": turn.model or "unknown",
                                "message": {"role": "model", "parts": [{"text": turn.content}]}})
            parent = mark
        write_lines(path, records)
        return Written(session, str(path), self.resume(session))

    def resume(self, session: str) -> list[str]:
        return ["qwen", "--resume", session]


HANDOFF = QwenSession()
