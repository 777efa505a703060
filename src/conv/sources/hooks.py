"""What the tools' hooks share: reading what a hook handed over (JSON on
stdin, as Claude Code and the tools that copy its hooks give it), the
capture's job for a session file, and whether that file holds the answer
the hook named yet (a tool may write its transcript after its hook ran).
Records of a session file are read only through the reader's declared shape
(importers/shape.py), as the import reads them. ``TranscriptHook`` is the
whole ``Hook`` of a tool laid out as Claude Code's."""

import json
import os

from .contract import Hook


class Unusable(Exception):
    """What a tool's hook handed over names nothing conv can capture: said to the user (``hint``: what to do)."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.message, self.hint = message, hint


STDIN_MOST = 32 << 20  # bytes of a hook's JSON read (Claude Code hands the last answer whole: 1 MB cut one)


def stdin_json(args: list[str], stdin) -> dict | None:
    """A hook's JSON object from stdin (None: not run as a hook is, but on a terminal or with arguments)."""
    if args or (stdin is not None and stdin.isatty()):
        return None
    if stdin is None:  # run with stdin closed
        return {}
    try:
        return json_object(stdin.buffer.read(STDIN_MOST).decode("utf-8", "replace"))
    except OSError:
        return {}


def transcript_job(title: str, path, cwd, answer, late: bool = False) -> dict | None:
    """The capture's job for a hook that named its session's file (``path``),
    the folder worked in and the answer the file must come to hold (None: a
    session that wrote no file, as a ``--version`` run ends one; ``late``: a
    tool that may write the file only after its hook ran, which the worker
    waits for)."""
    if not (isinstance(path, str) and path.endswith(".jsonl") and "\0" not in path):
        raise Unusable(f"{title} handed over no session file ({str(path)[:200]!r}): nothing captured")
    if not late and not os.path.exists(path):
        return None
    return {"file": os.path.abspath(path), "cwd": cwd if isinstance(cwd, str) else None,
            "answer": answer[-200:] if isinstance(answer, str) and answer.strip() else None}


def is_token(text: str) -> bool:
    """Whether a session's id as a hook named it is an id, never a path (letters, digits, - and _)."""
    return 0 < len(text) <= 100 and all(c.isascii() and (c.isalnum() or c in "-_") for c in text)


def json_object(text: str) -> dict:
    """A hook's JSON object ({} for anything else)."""
    try:
        found = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return found if isinstance(found, dict) else {}


TAIL = 64  # characters of an answer's end looked for in a session file
SCANNED = 4 << 20  # bytes at a session file's end looked at


def settled_answer(file: str, answer: str | None, reader, answers, marker: bytes = b"assistant", asked=None,
                   asked_marker: bytes = b'"user"') -> bool:
    """Whether the session file holds ``answer`` (its end) in one of its last
    records, as ``answers(record)`` gives a record's text; with no answer, any.
    Each line is checked against ``reader``'s record shape first (only lines
    holding ``marker``, the word an answer's record has, are parsed), so the
    hook reads what the import reads. Found only after the last question
    (``asked(record)``; lines holding ``asked_marker``): an earlier answer of
    the same words is not this one."""
    from ..importers.shape import Misfit  # (the worker's side: the hook's own start stays light)

    try:
        with open(file, "rb") as found:
            found.seek(max(0, os.fstat(found.fileno()).st_size - SCANNED))
            data = found.read()
    except OSError:
        return False
    wanted = " ".join(answer.split())[-TAIL:] if answer else ""
    for line in reversed(data.splitlines()):
        if marker not in line and not (asked and asked_marker in line):
            continue
        try:
            record = reader.record.check(json.loads(line))
        except (ValueError, RecursionError, Misfit):
            continue
        if record is None:
            continue
        if any(wanted in " ".join(text.split()) for text in answers(record)):
            return True
        if asked and asked(record):
            return False  # the question is the last thing written: its answer is not there yet
    return False


class TranscriptHook(Hook):
    """A hook laid out as Claude Code's (Qwen Code and Gemini CLI copied it):
    its JSON on stdin names the session's file (``transcript_path``) and the
    folder, and under ``answer_key`` the answer the file must come to hold;
    ``answers(record)`` is the text of a record as the tool's reader checked
    it, ``marker`` a word on the line of every record that may hold one,
    ``asked(record)`` whether a record is a person's question."""

    def __init__(self, source, answer_key: str, answers, asked, marker: bytes = b"assistant"):
        self.source, self.answer_key, self.answers, self.asked, self.marker = \
            source, answer_key, answers, asked, marker

    def handed(self, args: list[str], stdin) -> dict | None:
        return stdin_json(args, stdin)

    def job(self, handed: dict) -> dict | None:
        """The session file to capture, where it was worked on, and the answer it must hold."""
        return transcript_job(self.source.title, handed.get("transcript_path"), handed.get("cwd"),
                              handed.get(self.answer_key))

    def session_file(self, job: dict) -> str | None:
        return job["file"]

    def settled(self, job: dict, file: str) -> bool:
        """Whether the file holds the answer the hook named."""
        return settled_answer(file, job.get("answer"), self.source.reader(), self.answers, self.marker, self.asked)
