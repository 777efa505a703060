"""opencode, SST's coding agent: its sessions are rows of one SQLite
database, ``~/.local/share/opencode/opencode.db`` (reader.py), read by
``conv import`` and the catch-up; conv's hook is a plugin of conv's own
(settings.py), which names the session gone idle (hook.py). No hand-off:
its ``import`` takes its own export only. ``XDG_DATA_HOME`` moves the
folder, ``OPENCODE_DB`` the file."""

from pathlib import Path

from ..contract import Source
from ..contract import home as _home

SOURCE = Source("opencode", "opencode", __name__, ("reader", "settings", "hook"))


def database() -> Path:
    data = _home("XDG_DATA_HOME", "~/.local/share") / "opencode"
    named = _home("OPENCODE_DB", "")
    return data / named if str(named) not in ("", ".") else data / "opencode.db"
