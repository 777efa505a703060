"""ChatGPT: the conversations.json of a data export, or its zip (reader.py)."""

from ..source import Source

SOURCE = Source("chatgpt", "ChatGPT", __name__)
