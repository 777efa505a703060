"""llm (Simon Willison's CLI): its logs.db, read with SQLite (reader.py)."""

from ..contract import Source

SOURCE = Source("llm", "llm", __name__)
