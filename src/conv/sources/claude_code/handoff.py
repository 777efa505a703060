"""A Claude Code session: ``~/.claude/projects/<the folder's name>/<session
id>.jsonl`` (CLAUDE_CONFIG_DIR moves ~/.claude; the name as Claude Code
makes it, ``project_folder``), a record a line (user and assistant messages
chained by ``parentUuid``), resumed in that folder by ``claude --resume ID``."""

import re
import uuid

from ..contract import Handoff
from ..written import Written, write_lines
from . import sessions

MOST = 200  # characters of a folder's name before Claude Code cuts it and adds a hash of the whole path


def project_folder(cwd: str) -> str:
    """The folder name Claude Code keeps a working folder's sessions under
    (read from Claude Code 2.1.328): each character that is not an ASCII
    letter or digit as ``-``; past 200 characters, the first 200 and ``-``
    and the path's 32-bit string hash (over UTF-16 units, as Java's) in base 36."""
    name = re.sub(r"[^A-Za-z0-9]", "-", cwd)
    if len(name) <= MOST:
        return name
    data = cwd.encode("utf-16-le", "surrogatepass")
    value = 0
    for at in range(0, len(data), 2):
        value = (31 * value + int.from_bytes(data[at:at + 2], "little")) & 0xFFFFFFFF
    value = abs(value - (1 << 32) if value >= 1 << 31 else value)
    digits = ""
    while True:
        value, digit = divmod(value, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[digit] + digits
        if not value:
            return f"{name[:MOST]}-{digits}"


class ClaudeCodeSession(Handoff):
    def write(self, turns: list, cwd: str, title: str) -> Written:
        session = str(uuid.uuid4())
        path = sessions() / project_folder(cwd) / f"{session}.jsonl"
        records, parent = [], None
        for n, turn in enumerate(turns):
            mark = str(uuid.uuid4())
            base = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd,
                    "sessionId": session, "version": "2.1.328", "uuid": mark, "timestamp": turn.created}
            if turn.role == "user":
                records.append({**base, "type": "user", "message": {"role": "user", "content": turn.content}})
            else:
                records.append({**base, "type": "assistant", "message": {
                    "id": f"msg_conv_{n}", "type": "message", "role": "assistant", "model": turn.model or "unknown",
                    "content": [{"type": "text", "text": turn.content}], "stop_reason": "end_turn",
                    "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0}}})
            parent = mark
        if title and parent:
            records.append({"type": "summary", "summary": title, "leafUuid": parent})  # what --resume lists it as
        write_lines(path, records)
        return Written(session, str(path), self.resume(session))

    def resume(self, session: str) -> list[str]:
        return ["claude", "--resume", session]


HANDOFF = ClaudeCodeSession()
