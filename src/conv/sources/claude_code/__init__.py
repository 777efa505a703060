"""Claude Code, Anthropic's coding agent: its sessions are JSON lines under
``~/.claude/projects/<folder>/`` (reader.py), conv's hooks go in its
settings.json (settings.py), they hand over the session's file on stdin
(hook.py), and a conversation handed off becomes a session it resumes
(handoff.py). ``CLAUDE_CONFIG_DIR`` moves ``~/.claude``."""

import os
from pathlib import Path

from ..contract import Source
from ..contract import home as _home

SOURCE = Source("claude-code", "Claude Code", __name__, ("reader", "settings", "hook", "handoff"))


def home():
    return _home("CLAUDE_CONFIG_DIR", "~/.claude")


def sessions():
    return home() / "projects"


def state_file():
    """Claude Code's own state (its user-wide MCP servers among it): ~/.claude.json, or in CLAUDE_CONFIG_DIR."""
    where = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(where).expanduser() / ".claude.json" if where else Path("~/.claude.json").expanduser()
