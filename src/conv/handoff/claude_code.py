"""A Claude Code session: ``~/.claude/projects/<cwd, each character that is
not a letter or digit as ->/<session id>.jsonl`` (CLAUDE_CONFIG_DIR moves
~/.claude), a record a line (user and assistant messages chained by
``parentUuid``), resumed in that folder by ``claude --resume ID``."""

import os
import re
import uuid
from pathlib import Path

from . import Written, write_lines


def write(turns: list, cwd: str, title: str) -> Written:
    session = str(uuid.uuid4())
    root = Path(os.environ.get("CLAUDE_CONFIG_DIR") or "~/.claude").expanduser() / "projects"
    path = root / re.sub(r"[^A-Za-z0-9]", "-", cwd) / f"{session}.jsonl"
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
    return Written(session, str(path), ["claude", "--resume", session])
