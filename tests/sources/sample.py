"""A source's sample: one session as the tool keeps it on disk, what conv
must make of it, and where in it the things a hostile file attacks sit
(ids, folders, titles, text, times, parents), so that one suite
(test_every_source.py, test_hostile_files.py) holds every source to the same
behaviour. A source's own sample is ``samples/<tool>.py``'s ``SAMPLE``.

``records`` are the session in the tool's own shape: JSON records a line
(``jsonl``), one JSON document (``json``), YAML (``yaml``), tables of rows
(``sqlite``: {table: [row, …]}, a row's dict value written as JSON text),
or chats of a Markdown history (``markdown``: aider). ``other`` is a second
session of the same tool; ``together`` says it sits in the same file or
database (it then must survive whatever the first one holds), else in a
file of its own beside it (``other_layout``)."""

from __future__ import annotations

import copy
import json
import re
import sqlite3
from pathlib import Path

BAD_UTF8 = "\ue000not-utf8\ue000"  # written as bytes that are no UTF-8 (text formats and SQLite alike)


class Deep:
    """A value nested ``n`` lists deep, written as JSON (past what json.dumps itself can write)."""

    def __init__(self, n: int):
        self.n = n


class Expect:
    """What an import of the sample must give: the conversation's turns (roles, and words each holds), the
    usage summed over its answers, the edits (path, kind) and commands its answers keep."""

    def __init__(self, roles: list[str], words: list[str] = (), usage: dict | None = None,
                 edits: list[tuple] = (), commands: list[str] = (), conversations: int = 1):
        self.roles, self.words, self.usage = roles, list(words), usage
        self.edits, self.commands, self.conversations = list(edits), list(commands), conversations


class Sample:
    def __init__(self, source: str, records, layout: str, expect: Expect, *, form: str = "jsonl",
                 fields: dict | None = None, other=None, together: bool = False, other_layout: str = "",
                 extra: dict | None = None, schema: str = "", import_file: bool = False, import_at: str = "",
                 times: tuple = (), home: str = "", settings: str = "", handed=None):
        self.source, self.records, self.layout, self.expect, self.form = source, records, layout, expect, form
        self.fields = fields or {}  # kind -> paths into records: "id", "cwd", "title", "text", "time", "parent"
        self.other, self.together, self.other_layout = other, together, other_layout
        self.extra = extra or {}  # other files of the session (layout-relative path -> text), written as they are
        self.schema, self.import_file, self.import_at = schema, import_file, import_at  # what to import: the
        # file, or this folder under the one written to (else that one)
        self.times = times  # hostile times in the tool's own form, besides ISO ones and numbers
        # a tool with hooks: the variable that moves its folder (the layout is under it), the user's own settings
        # before conv connect (their text, in the file settings_file names), and handed(file) -> (args, stdin):
        # what its hook hands conv when the session's answer is in
        self.home, self.settings, self.handed = home, settings, handed

    def __repr__(self) -> str:
        return self.source

    def write(self, folder: Path, records=None, other: bool = True) -> Path:
        """The session (``records``: the sample's, or a hostile copy) as the tool keeps it under ``folder``,
        with the other session where it sits; the path to import."""
        records = self.records if records is None else records
        file = folder / self.layout
        file.parent.mkdir(parents=True, exist_ok=True)
        if other and self.other is not None and self.together:
            records = combined(self.form, records, self.other)
        written(self.form, file, records, self.schema)
        for name, text in self.extra.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text)
        if other and self.other is not None and not self.together:
            beside = folder / self.other_layout
            beside.parent.mkdir(parents=True, exist_ok=True)
            written(self.form, beside, self.other, self.schema)
        return file if self.import_file else folder / self.import_at

    def at(self, path: tuple):
        """The value at ``path`` in the records."""
        value = self.records
        for step in path:
            value = value[step]
        return value

    def with_value(self, path: tuple, value):
        """A copy of the records with ``value`` at ``path``."""
        records = copy.deepcopy(self.records)
        where = records
        for step in path[:-1]:
            where = where[step]
        where[path[-1]] = value
        return records


def combined(form: str, records, other):
    if form == "sqlite":
        return {table: [*records.get(table, []), *other.get(table, [])] for table in {*records, *other}}
    if isinstance(records, dict) and isinstance(other, dict):  # a document holding a list of sessions
        key = next(k for k, v in records.items() if isinstance(v, list))
        return {**records, key: [*records[key], *other[key]]}
    return [*records, *other]


def _json(value) -> str:
    """JSON of ``value``: a ``Deep(n)`` as n nested lists (past what json.dumps writes), a lone surrogate as JSON
    escapes it (``\\ud800``, which JSON readers take in), BAD_UTF8 left to bytes."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=lambda deep: f"@deep{deep.n}@")
    text = re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m[0]):04x}", text)
    return re.sub(r'"@deep(\d+)@"', lambda m: "[" * int(m[1]) + '"x"' + "]" * int(m[1]), text)


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass").replace(BAD_UTF8.encode(), b"not-\xff\xfe-utf8")


def written(form: str, file: Path, records, schema: str = "") -> None:
    if form == "jsonl":
        file.write_bytes(_bytes("".join(_json(r) + "\n" for r in records)))
    elif form in ("json", "yaml"):  # JSON is YAML
        file.write_bytes(_bytes(_json(records)))
    elif form == "markdown":
        file.write_bytes(_bytes("".join(f"\n# aider chat started at {c['started']}\n{c['text']}" for c in records)))
    elif form == "sqlite":
        file.unlink(missing_ok=True)
        with sqlite3.connect(file) as db:
            db.executescript(schema)
            for table, rows in records.items():
                for row in rows:
                    values = [_sql(v) for v in row.values()]
                    marks = ", ".join("CAST(? AS TEXT)" if isinstance(v, bytes) else "?" for v in values)
                    db.execute(f'insert into "{table}" ({", ".join(row)}) values ({marks})', values)
        db.close()
    else:
        raise AssertionError(form)


def _sql(value):
    """A row's value as SQLite takes it: an object as its JSON text; text that must not be UTF-8 as bytes."""
    if isinstance(value, (dict, list, Deep)):
        value = _json(value)
    if isinstance(value, str):
        data = _bytes(value)
        return data if data != value.encode("utf-8", "surrogatepass") or "\ud800" in value else value
    return value
