"""aichat: a session a YAML file in its sessions folder (reader.py)."""

from ..source import Source

SOURCE = Source("aichat", "aichat", __name__)
