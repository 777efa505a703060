"""Qwen Code: conv's hooks and conv mcp in its settings.json, laid out as
Claude Code's (json_settings.py). Stop runs after each answer (the session
file holds the exchange then), SessionEnd as a TUI session ends (``/quit``,
``/clear``; a ``qwen -p`` run never sends it); each hands the hook a JSON
object on stdin with ``session_id`` and ``transcript_path``. Its MCP
servers are read from the same file (``mcpServers``). A project's settings
are its ``.qwen/settings.json``, which Qwen Code reads in a folder it trusts."""

from pathlib import Path

from ...connect.json_settings import Hooks, HooksAndServer
from . import home

AGENT = "qwen"
EVENTS = ("Stop", "SessionEnd")
SECONDS = 10  # the most Qwen Code waits for conv's hook, which returns at once


def settings_file(project: Path | None) -> Path:
    return (project / ".qwen" if project is not None else home()) / "settings.json"


_SETTINGS = HooksAndServer(Hooks(AGENT, EVENTS, {"timeout": SECONDS}), settings_file)
added, holds, removed, captures = _SETTINGS.added, _SETTINGS.holds, _SETTINGS.removed, _SETTINGS.captures
register, unregister, mcp = _SETTINGS.register, _SETTINGS.unregister, _SETTINGS.mcp
