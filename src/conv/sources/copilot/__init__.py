"""GitHub Copilot CLI: its sessions are event logs under
``~/.copilot/session-state/<session id>/events.jsonl`` (reader.py), conv's
hooks are a file of their own in its hooks folder and conv mcp goes in its
mcp-config.json (settings.py), the hooks hand over the session on stdin
(hook.py), and a conversation handed off becomes a session it resumes
(handoff.py). ``COPILOT_HOME`` moves ``~/.copilot``."""

from ..contract import Source
from ..contract import home as _home

SOURCE = Source("copilot", "Copilot CLI", __name__, ("reader", "settings", "hook", "handoff"))


def home():
    return _home("COPILOT_HOME", "~/.copilot")


def sessions():
    return home() / "session-state"
