"""Gemini CLI: conv's hooks and conv mcp in its settings.json, laid out as
Claude Code's (json_settings.py) but with timeouts in milliseconds.
AfterAgent runs after each answer (the session file holds the exchange
then), SessionEnd as a session ends (not waited for); each hands the hook a
JSON object on stdin with ``session_id`` and ``transcript_path``. Its MCP
servers are read from the same file (``mcpServers``; their tools reach the
model as ``mcp_conv_search``…). A project's settings are its
``.gemini/settings.json``."""

from pathlib import Path

from ...connect.json_settings import Hooks, HooksAndServer
from . import home

AGENT = "gemini"
EVENTS = ("AfterAgent", "SessionEnd")
MILLISECONDS = 10_000  # the most Gemini CLI waits for conv's hook, which returns at once


def settings_file(project: Path | None) -> Path:
    return (project / ".gemini" if project is not None else home()) / "settings.json"


_SETTINGS = HooksAndServer(Hooks(AGENT, EVENTS, {"timeout": MILLISECONDS}), settings_file)
added, holds, removed, captures = _SETTINGS.added, _SETTINGS.holds, _SETTINGS.removed, _SETTINGS.captures
register, unregister, mcp = _SETTINGS.register, _SETTINGS.unregister, _SETTINGS.mcp
