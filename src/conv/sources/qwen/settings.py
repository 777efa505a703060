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

# The most Qwen Code waits for conv's hook (which returns at once), in milliseconds: Qwen Code
# before 0.2x reads a hook's timeout so ("Timeout in milliseconds, default 60000"), and from
# then on reads seconds but keeps 1000 or more as milliseconds. 10 (seconds) killed the hook at
# once in the older ones, every exchange lost unseen; 10000 is 10 s in both.
MILLISECONDS = 10_000


class QwenSettings(HooksSettings):
    program = "qwen"
    own_keys = frozenset({"$version"})  # its settings' format, written into every file it reads (2 since 0.1x)
    allows_comments = True  # its settings.json may hold // and /* */ comments
    timeout_unit = 0.001  # milliseconds, as every version before 0.2x reads a hook's timeout

    def settings_file(self, project: Path | None) -> Path:
        return (project / ".qwen" if project is not None else home()) / "settings.json"


SETTINGS = QwenSettings(SOURCE, ("Stop", "SessionEnd"), {"timeout": MILLISECONDS})
