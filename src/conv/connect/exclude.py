"""A project's settings file that names this machine's conv, kept out of git
in the project's own ``.git/info/exclude`` (never a file the project
shares). Only the line conv added is ever taken out again, and the rest of
the file stays as it was, byte for byte (its line endings too)."""

import os
from pathlib import Path

from ..home.project import excludes


def keep_out(project: Path, file: Path) -> bool:
    """``file``'s line in the project's exclude file; True when conv added it (it was not there)."""
    found, line = _place(project, file)
    if found is None:
        return False
    data = _read(found)
    if line in _lines(data):
        return False
    ending = b"\r\n" if b"\r\n" in data else b"\n"
    gap = ending if data and not data.endswith(b"\n") else b""
    try:
        found.parent.mkdir(parents=True, exist_ok=True)
        with open(found, "ab") as out:
            out.write(gap + line + ending)
    except OSError:
        return False  # an exclude file conv cannot write: git status shows the settings file; nothing else is wrong
    return True


def let_in(project: Path, file: Path) -> None:
    """The line ``keep_out`` added, out again; nothing else of the file changed."""
    found, line = _place(project, file)
    if found is None:
        return
    data = _read(found)
    kept = [piece for piece in data.splitlines(keepends=True) if piece.rstrip(b"\r\n") != line]
    if len(kept) == len(data.splitlines(keepends=True)):
        return
    try:
        tmp = found.with_name(f".{found.name}.conv-{os.getpid()}")
        tmp.write_bytes(b"".join(kept))
        os.replace(tmp, found)
    except OSError:
        pass


def _place(project: Path, file: Path) -> tuple[Path | None, bytes]:
    found = excludes(str(project))
    try:
        return (Path(found) if found else None), ("/" + str(file.relative_to(project))).encode()
    except ValueError:
        return None, b""


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _lines(data: bytes) -> list[bytes]:
    return [piece.rstrip(b"\r") for piece in data.split(b"\n")]
