"""Gemini CLI: conv's hooks and conv mcp in its settings.json, laid out as
Claude Code's (json_settings.py) but with timeouts in milliseconds.
AfterAgent runs after each answer (the session file holds the exchange
then), SessionEnd as a session ends (not waited for); each hands the hook a
JSON object on stdin with ``session_id`` and ``transcript_path``. Its MCP
servers are read from the same file (``mcpServers``; their tools reach the
model as ``mcp_conv_search``…). A project's settings are its
``.gemini/settings.json``."""

from pathlib import Path

from ..json_hooks import HooksSettings
from . import SOURCE, home

MILLISECONDS = 10_000  # the most Gemini CLI waits for conv's hook, which returns at once


class GeminiSettings(HooksSettings):
    program = "gemini"
    allows_comments = True  # its settings.json may hold // and /* */ comments
    timeout_unit = 0.001  # its hooks' timeouts are in milliseconds

    def settings_file(self, project: Path | None) -> Path:
        return (project / ".gemini" if project is not None else home()) / "settings.json"


SETTINGS = GeminiSettings(SOURCE, ("AfterAgent", "SessionEnd"), {"timeout": MILLISECONDS})
