"""Finding a tool's files and loading them as records, for the readers
(boundary.py checks the records). Loading never trusts a file: one that
cannot be read, is no JSON (or YAML) of the kind expected, nests without end,
or uses YAML aliases (a billion-laughs file expands to gigabytes) raises
``Unreadable`` with the reason, said in one line naming the file."""

import json
import os
import re
from pathlib import Path

from ..errors import UsageError
from ..format.frontmatter import aliased
from ..records import dataclass

HALF_WRITTEN = "(half-written?)"  # said of a last line that is no JSON yet: the tool may still be writing it
MOST_BYTES = 512 * 1024 * 1024  # a session file past this is no session: named, not read


class Unreadable(Exception):
    """A whole file that cannot be read; its text says why, for the one line naming the file."""


@dataclass
class Unparsed:
    """A record a loader could not even parse (a line that is no JSON): counted as left out, with ``why``."""

    why: str


def files_at(path: Path, pattern: str, hint: str) -> list[Path]:
    """A source's files at ``path``: the one named, or those in the folder
    that ``pattern`` matches (dot files left out), each once however many
    names reach it (a symlink to a file beside it); one line when neither is there."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        if path.exists():
            raise UsageError(f"{path} is neither a file nor a folder", hint)
        raise UsageError(f"no such file or folder: {path}", hint)
    found, seen = [], set()
    for file in sorted(path.glob(pattern)):
        if file.name.startswith(".") or file.is_dir():
            continue  # a FIFO, a device or a dangling link is kept: reading it names it, never waits on it
        try:
            real = os.path.realpath(file)
        except (OSError, ValueError):
            continue
        if real not in seen:
            seen.add(real)
            found.append(file)
    return found


def raw(file: Path) -> bytes:
    """The bytes of ``file`` (Unreadable: a folder, a device, a FIFO: never
    waited on; too big)."""
    import stat

    try:
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from None
    with open(fd, "rb") as f:
        status = os.fstat(f.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise Unreadable("not a regular file (a FIFO, a device): never waited on")
        if status.st_size > MOST_BYTES:
            raise Unreadable(f"larger than any session ({status.st_size:,} bytes)")
        try:
            return f.read()
        except OSError as exc:
            raise Unreadable(exc.strerror or str(exc)) from None


def json_lines(file: Path) -> list:
    """A JSON record a line (a line that is no JSON is counted as left out:
    the last one may be half-written while the tool is still going)."""
    text = raw(file).decode("utf-8", "replace")
    scan = json.JSONDecoder().scan_once  # the C scanner itself: decode() adds two regex matches a line
    out = []
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        line = line.strip(" \t\r")  # JSON's own white space only
        if line:
            unfinished = f" {HALF_WRITTEN}" if number == len(lines) else ""  # the last, with no newline yet
            try:
                value, end = scan(line, 0)
                out.append(value if end == len(line) else Unparsed(f"line {number} is no JSON{unfinished}"))
            except (ValueError, StopIteration):
                out.append(Unparsed(f"line {number} is no JSON{unfinished}"))
            except RecursionError:
                out.append(Unparsed(f"line {number} is JSON nested too deeply"))
    return out


def json_document(file: Path):
    """The one JSON value ``file`` holds."""
    return json_value(raw(file))


def json_value(data: bytes):
    """The JSON value ``data`` holds; a list whose items nest past what can be
    read is read item by item, those items counted as left out (a list of
    conversations: one hostile conversation does not cost the others)."""
    text = data.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise Unreadable(f"not JSON ({exc.msg.lower()}, line {exc.lineno})") from None
    except RecursionError:
        items = _items(text)
        if items is None:
            raise Unreadable("JSON nested too deeply") from None
        return items


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},]')


def _items(text: str) -> list | None:
    """A top-level JSON list's items parsed one by one (one nested too deeply: Unparsed); None when it is no list."""
    if not text.lstrip().startswith("["):
        return None
    out, depth, start = [], 0, None
    for token in _TOKENS.finditer(text):
        mark = token[0]
        if mark in "[{":
            depth += 1
            if depth == 1:
                start = token.end()
        elif mark in "]}":
            depth -= 1
        if start is not None and depth in (0, 1) and mark in ",]" and (mark == "," or depth == 0):
            piece = text[start:token.start()]
            start = token.end()
            if piece.strip():
                out.append(_item(piece, len(out) + 1))
            if depth == 0:
                return out
    return None


def _item(piece: str, n: int):
    try:
        return json.loads(piece)
    except ValueError:
        return Unparsed(f"item {n} is no JSON")
    except RecursionError:
        return Unparsed(f"item {n} is JSON nested too deeply")


def yaml_document(file: Path):
    """The one YAML value ``file`` holds, refused when it uses aliases."""
    from ruamel.yaml import YAML

    data = raw(file).decode("utf-8", "replace")  # a byte that is no UTF-8 costs that character, not the session
    try:
        value = YAML(typ="safe").load(data)  # an alias is loaded as a second reference, never expanded
    except RecursionError:
        raise Unreadable("YAML nested too deeply") from None
    except Exception as exc:  # noqa: BLE001 - ruamel raises many types; all mean "not YAML"
        mark, problem = getattr(exc, "problem_mark", None), getattr(exc, "problem", None)
        where = f", line {mark.line + 1}" if mark is not None else ""
        problem = re.sub(r"\('(.+?)',\)", r"'\1'", problem or type(exc).__name__)  # ruamel says ('{',) for '{'
        raise Unreadable(f"not YAML ({problem}{where})") from None
    if aliased(value):
        raise Unreadable("YAML with aliases (*name), which aichat never writes")
    return value


def open_database(file: Path):
    """A tool's SQLite database, opened read-only (never migrated, locked or
    checkpointed: what sits in its write-ahead log is read too), its text
    read as UTF-8 with a byte that is none as U+FFFD: one row of bad bytes
    costs that row's characters, never the database. Anything but a plain
    file is refused, never waited on (SQLite would block on a FIFO)."""
    import sqlite3
    import stat

    try:
        kind = os.stat(file).st_mode
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from None
    if not stat.S_ISREG(kind):
        raise Unreadable("a folder, not a database" if stat.S_ISDIR(kind) else
                         "not a regular file (a FIFO, a device): never waited on")
    try:
        db = sqlite3.connect(file.resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise Unreadable(f"cannot open it ({exc})") from None
    db.text_factory = lambda data: data.decode("utf-8", "replace")
    return db
