"""opencode, SST's coding agent: its sessions are rows of one SQLite
database, ``~/.local/share/opencode/opencode.db`` (reader.py), read by
``conv import`` and the catch-up. ``XDG_DATA_HOME`` moves the folder,
``OPENCODE_DB`` the file. opencode's hooks are JavaScript plugins in its own
process, not a command it runs: no capture, and no hand-off (its ``import``
takes its own export only)."""

from pathlib import Path

from ..contract import Source
from ..contract import home as _home

SOURCE = Source("opencode", "opencode", __name__)


def database() -> Path:
    data = _home("XDG_DATA_HOME", "~/.local/share") / "opencode"
    named = _home("OPENCODE_DB", "")
    return data / named if str(named) not in ("", ".") else data / "opencode.db"
