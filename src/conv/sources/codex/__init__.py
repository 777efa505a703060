"""Codex CLI, OpenAI's coding agent: its sessions are rollouts under
``~/.codex/sessions/YYYY/MM/DD/`` (reader.py), conv is its ``notify`` program
in config.toml (settings.py), which names the thread that finished a turn
(hook.py), and a conversation handed off becomes a rollout it resumes
(handoff.py). ``CODEX_HOME`` moves ``~/.codex``."""

from ..contract import Source
from ..contract import home as _home

SOURCE = Source("codex", "Codex", __name__, ("reader", "settings", "hook", "handoff"))


def home():
    return _home("CODEX_HOME", "~/.codex")


def sessions():
    return home() / "sessions"
