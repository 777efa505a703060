"""Qwen Code, Alibaba's coding agent (a fork of Gemini CLI that writes its
sessions as Claude Code does): its sessions are JSON lines under
``~/.qwen/projects/<folder>/chats/`` (reader.py), conv's hooks and its MCP
server go in its settings.json (settings.py), the hooks hand over the
session's file on stdin (hook.py), and a conversation handed off becomes a
session it resumes (handoff.py). ``QWEN_HOME`` moves ``~/.qwen``."""

from ..contract import Source
from ..contract import home as _home

SOURCE = Source("qwen", "Qwen Code", __name__, ("reader", "settings", "hook", "handoff"))


def home():
    return _home("QWEN_HOME", "~/.qwen")


def sessions():
    return home() / "projects"
