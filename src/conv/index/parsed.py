"""The parsed-file part of the cache: what each blob's frontmatter says."""

import json
import sqlite3
from collections.abc import Callable

from . import db as sql


class ParsedFiles:
    """Parsed files by blob id (the store's ParsedCache): a blob never
    changes, so neither does what it parses to. The frontmatter is kept;
    a turn's text is held only until the full-text index has taken it,
    then read from the store (``read_text``) when needed again."""

    def __init__(self, rows, connection, read_text: Callable[[str], str]):
        self._rows = rows
        self._connection = connection
        self._read_text = read_text
        self.texts: dict[str, str] = {}  # blob id -> text, parsed and not indexed yet

    def text(self, sha: str) -> str | None:
        """A turn's text: the one just parsed, else read from the store (None
        if it cannot be: a purge rebuilds the cache anyway)."""
        text = self.texts.pop(sha, None)
        if text is not None:
            return text
        try:
            return self._read_text(sha)
        except Exception:  # in turn_body an exception would surface as SQLite's "user-defined function raised"
            return None

    def get_parsed(self, shas: list[str]) -> dict[str, dict]:
        out = {}
        for start in range(0, len(shas), 500):  # SQLite caps the number of parameters
            chunk = shas[start : start + 500]
            marks = ",".join("?" * len(chunk))
            out.update((sha, json.loads(data)) for sha, data in
                       self._rows(f"SELECT sha, data FROM parsed WHERE sha IN ({marks})", chunk))
        return out

    def put_parsed(self, parsed: dict[str, dict]) -> None:
        rows = []
        for sha, data in parsed.items():
            if "content" in data:  # a turn: its text waits for the full-text index; its name is its file's
                data = {key: value for key, value in data.items() if key not in ("content", "name")}
                self.texts[sha] = parsed[sha]["content"]
            rows.append((sha, json.dumps(data, ensure_ascii=False, separators=(",", ":"))))
        db = self._connection()
        try:
            with sql.transaction(db):
                db.executemany("INSERT OR REPLACE INTO parsed VALUES (?, ?)", rows)
        except sqlite3.OperationalError:
            if not db.in_transaction:
                return  # busy: parsing again next time costs less than waiting
            raise
