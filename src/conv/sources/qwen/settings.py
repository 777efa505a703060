"""Qwen Code: conv's hooks and conv mcp in its settings.json, laid out as
Claude Code's (json_settings.py). Stop runs after each answer (the session
file holds the exchange then), SessionEnd as a TUI session ends (``/quit``,
``/clear``; a ``qwen -p`` run never sends it); each hands the hook a JSON
object on stdin with ``session_id`` and ``transcript_path``. Its MCP
servers are read from the same file (``mcpServers``). A project's settings
are its ``.qwen/settings.json``, which Qwen Code reads in a folder it trusts."""

from pathlib import Path

from ..json_hooks import HooksSettings
from . import SOURCE, home

SECONDS = 10  # the most Qwen Code waits for conv's hook, which returns at once


class QwenSettings(HooksSettings):
    def settings_file(self, project: Path | None) -> Path:
        return (project / ".qwen" if project is not None else home()) / "settings.json"


SETTINGS = QwenSettings(SOURCE, ("Stop", "SessionEnd"), {"timeout": SECONDS})
