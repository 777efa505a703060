"""pi, Mario Zechner's coding agent: its sessions are JSON lines under
``~/.pi/agent/sessions/--<folder>--/`` (reader.py), read by ``conv import``
and the catch-up; conv's hook is an extension of conv's own (settings.py),
which hands over the session's file after each run (hook.py). No hand-off:
a session pi did not write is not one it resumes. ``PI_CODING_AGENT_DIR``
moves ``~/.pi/agent``, ``PI_CODING_AGENT_SESSION_DIR`` its sessions."""

from ..contract import Source
from ..contract import home as _home

SOURCE = Source("pi", "pi", __name__, ("reader", "settings", "hook"))


def agent_home():
    return _home("PI_CODING_AGENT_DIR", "~/.pi/agent")


def sessions():
    moved = _home("PI_CODING_AGENT_SESSION_DIR", "")
    return moved if str(moved) not in ("", ".") else agent_home() / "sessions"
