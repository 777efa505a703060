"""What conv keeps about a conversation outside the store, erased with it by
a purge: the session files of terminals that were in it, the file ``conv
edit`` left in the cache, the chat history's lines that were its questions,
and the sessions ``conv handoff`` wrote of it into another tool's folder.
Each file is replaced whole (written beside, renamed over), so no block of
the old one stays in it."""

import os
import re

from . import handoffs, paths, session

_LIBEDIT = "_HiStOrY_V2_"  # the first line of a history file libedit (macOS) wrote; it escapes as \040


def erase(conv_ids, questions) -> None:
    session.forget(set(conv_ids))
    handoffs.forget(conv_ids)
    for conv_id in conv_ids:
        paths.edit_file(conv_id).unlink(missing_ok=True)
    _drop_history(questions)


def _drop_history(questions) -> None:
    """The chat history without the lines any of ``questions`` was typed as."""
    path = paths.chat_history()
    gone = {line.strip() for text in questions for line in [text, *text.splitlines()] if line.strip()}
    try:
        lines = path.read_bytes().decode("utf-8", "surrogateescape").splitlines(keepends=True)
    except OSError:
        return
    libedit = bool(lines) and lines[0].strip() == _LIBEDIT
    kept = [line for line in lines if _typed(line, libedit) not in gone]
    if len(kept) == len(lines):
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # private, as the chat made it
    with os.fdopen(fd, "wb") as out:
        out.write("".join(kept).encode("utf-8", "surrogateescape"))
    os.replace(tmp, path)


def _typed(line: str, libedit: bool) -> str:
    text = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), line) if libedit else line
    return text.strip()
