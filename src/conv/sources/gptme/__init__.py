"""gptme: a conversation a folder under its logs, JSON lines (reader.py)."""

from ..contract import Source

SOURCE = Source("gptme", "gptme", __name__)
