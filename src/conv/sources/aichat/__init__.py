"""aichat: a session a YAML file in its sessions folder (reader.py)."""

from ..contract import Source

SOURCE = Source("aichat", "aichat", __name__)
