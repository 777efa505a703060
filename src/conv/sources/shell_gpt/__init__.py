"""shell-gpt (sgpt): its chats, a JSON file each in its chat cache (reader.py)."""

from ..contract import Source

SOURCE = Source("shell-gpt", "shell-gpt", __name__)
