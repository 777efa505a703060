"""ChatGPT: the conversations.json of a data export, or its zip (reader.py)."""

from ..contract import Source

SOURCE = Source("chatgpt", "ChatGPT", __name__)
