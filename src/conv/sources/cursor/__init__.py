"""Cursor, the editor, and its CLI (cursor-agent): its chats are kept three
ways, each read (reader.py): the agent transcripts under
``~/.cursor/projects/<folder>/agent-transcripts/``, the CLI's
``~/.cursor/chats/<md5 of the folder>/<chat id>/store.db``, and the editor's
``state.vscdb`` (its ``cursorDiskKV`` table) in its globalStorage; a chat
found in a database and as a transcript is read once, from the database.
Cursor is an app with no command-line hook conv could run: no capture, no
hand-off; the catch-up (import.auto) takes its chats in.
``CURSOR_CONFIG_DIR`` moves ``~/.cursor``."""

from pathlib import Path

from ..contract import Source
from ..contract import home as _home

SOURCE = Source("cursor", "Cursor", __name__)


def home() -> Path:
    return _home("CURSOR_CONFIG_DIR", "~/.cursor")


def editor_state() -> Path:
    """The editor's global state database (Linux: ~/.config/Cursor/User/globalStorage/state.vscdb)."""
    return _home("XDG_CONFIG_HOME", "~/.config") / "Cursor" / "User" / "globalStorage" / "state.vscdb"
