"""pi, Mario Zechner's coding agent: its sessions are JSON lines under
``~/.pi/agent/sessions/--<folder>--/`` (reader.py), read by ``conv import``
and the catch-up. ``PI_CODING_AGENT_DIR`` moves ``~/.pi/agent``,
``PI_CODING_AGENT_SESSION_DIR`` its sessions. pi has no hooks a shell
command can take (its extensions are TypeScript modules): no capture, no
hand-off."""

from ..contract import Source
from ..contract import home as _home

SOURCE = Source("pi", "pi", __name__)


def sessions():
    moved = _home("PI_CODING_AGENT_SESSION_DIR", "")
    return moved if str(moved) not in ("", ".") else _home("PI_CODING_AGENT_DIR", "~/.pi/agent") / "sessions"
