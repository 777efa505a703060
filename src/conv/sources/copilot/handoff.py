"""A Copilot CLI session: ``~/.copilot/session-state/<session id>/`` with its
``events.jsonl`` (a ``session.start``, then user and assistant messages,
each event naming the one before it) and ``workspace.yaml`` (its folder and
name), resumed by ``copilot --resume=ID`` (read from 1.0.102, whose own
``copilot sessions import`` writes the same events)."""

import json
import uuid

from ..contract import Handoff
from ..written import Written, write_lines
from . import sessions

VERSION = "1.0.102"


def _event(kind: str, time: str, parent: str | None, data: dict) -> dict:
    return {"type": kind, "data": data, "id": str(uuid.uuid4()), "timestamp": time, "parentId": parent}


class CopilotSession(Handoff):
    def write(self, turns: list, cwd: str, title: str) -> Written:
        session = str(uuid.uuid4())
        folder = sessions() / session
        started = turns[0].created
        events = [_event("session.start", started, None, {
            "sessionId": session, "version": 1, "producer": "copilot-agent", "copilotVersion": VERSION,
            "startTime": started, "context": {"cwd": cwd}, "alreadyInUse": False})]
        for turn in turns:
            data = {"content": turn.content} if turn.role == "user" else {
                "messageId": str(uuid.uuid4()), "content": turn.content, "model": turn.model or "unknown",
                "toolRequests": []}
            events.append(_event(f"{turn.role}.message", turn.created, events[-1]["id"], data))
        write_lines(folder / "events.jsonl", events)
        workspace = {"id": session, "cwd": cwd, "name": title or "Handed off from conv", "user_named": True,
                     "summary_count": 0, "fork_count": 0, "created_at": started, "updated_at": turns[-1].created}
        (folder / "workspace.yaml").write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in workspace.items()))
        return Written(session, str(folder / "events.jsonl"), self.resume(session))

    def resume(self, session: str) -> list[str]:
        return ["copilot", f"--resume={session}"]


HANDOFF = CopilotSession()
