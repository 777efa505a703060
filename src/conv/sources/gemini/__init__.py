"""Gemini CLI, Google's coding agent: its sessions are JSON lines under
``~/.gemini/tmp/<project>/chats/`` (reader.py), conv's hooks and its MCP
server go in its settings.json (settings.py), the hooks hand over the
session's file on stdin (hook.py), and a conversation handed off becomes a
session it resumes (handoff.py). ``GEMINI_CLI_HOME`` moves the folder
``~/.gemini`` is in."""

from pathlib import Path

from ..contract import Source
from ..contract import home as _home

SOURCE = Source("gemini", "Gemini CLI", __name__, ("reader", "settings", "hook", "handoff"))


def home() -> Path:
    return _home("GEMINI_CLI_HOME", "~") / ".gemini"


def sessions() -> Path:
    return home() / "tmp"
