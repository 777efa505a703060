"""What ``conv import`` has read of the sources kept as one file a session
(Claude Code): each file's size and time when it was last imported whole, and
the conversations it gave, so that importing again reads only the sessions
that changed since (or whose conversations are no longer in the store). Kept
beside the session files, outside the store: it is this machine's, and losing
it only costs a full read (what is already stored is never added twice)."""

import json
import os
from collections.abc import Callable
from pathlib import Path

from . import paths
from .files import json_object, write_atomic


def _file(source: str) -> Path:
    return paths.state_dir() / "imports" / f"{source}.json"


def fingerprint(file: Path) -> list[int]:
    status = file.stat()
    return [status.st_size, status.st_mtime_ns]


def seen(source: str) -> dict[str, list]:
    """path -> [size, mtime_ns, conversation ids, reader version] of the files imported whole ({} when unknown or
    unreadable)."""
    return json_object(_file(source))


def remember(source: str, imported: dict[str, list]) -> None:
    """``imported``: path -> [size, mtime_ns, conversation ids, reader version] of the files just imported whole."""
    write_atomic(_file(source), json.dumps({**seen(source), **imported}))


def changed(source: str, files: list[Path], stored: Callable[[str], bool], version: int) -> list[Path]:
    """Of ``files``, those to read: changed since imported whole, read by another version of the reader (what it
    makes of them changed), or whose conversations are not ``stored``."""
    known = seen(source)

    def same(file: Path) -> bool:
        entry = known.get(os.fspath(file))
        return (isinstance(entry, list) and len(entry) == 4 and entry[:2] == fingerprint(file)
                and entry[3] == version and all(stored(conv_id) for conv_id in entry[2]))

    return [f for f in files if not same(f)]
