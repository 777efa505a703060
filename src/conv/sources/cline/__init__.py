"""Cline, the coding agent of VS Code and of its own CLI (npm ``cline``):
its sessions are JSON documents under ``~/.cline/data/sessions/<id>/`` (the
CLI 3 and the extension 4's store), and an older extension's tasks are
folders under VS Code's globalStorage (reader.py); conv's hook is a
TaskComplete file of conv's own in its hooks folder (settings.py), which
names the session that finished a turn (hook.py). ``CLINE_DIR`` moves
``~/.cline``, ``CLINE_DATA_DIR`` its data, ``CLINE_SESSION_DATA_DIR`` its
sessions."""

from pathlib import Path

from ..contract import Source
from ..contract import home as _home

SOURCE = Source("cline", "Cline", __name__, ("reader", "settings", "hook"))
EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")  # the editors whose globalStorage it uses
EXTENSION = "saoudrizwan.claude-dev"  # the extension's id: its globalStorage folder


def home() -> Path:
    return _home("CLINE_DIR", "~/.cline")


def data() -> Path:
    return _home("CLINE_DATA_DIR", str(home() / "data"))


def sessions() -> Path:
    return _home("CLINE_SESSION_DATA_DIR", str(data() / "sessions"))


def task_folders() -> list[Path]:
    """Where the older extension keeps its tasks: each editor's globalStorage, and ~/.cline/data (its CLI 1-2)."""
    config = _home("XDG_CONFIG_HOME", "~/.config")
    return [*(config / editor / "User" / "globalStorage" / EXTENSION / "tasks" for editor in EDITORS),
            data() / "tasks"]
