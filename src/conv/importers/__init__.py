"""The ingest boundary's reading side: another tool's files made into one
in-memory model (imported.py), never touching the store (services/imports.py
writes what was read).

Each tool's reader lives in its own folder (``sources/<tool>/reader.py``) and
is a ``boundary.Reader`` of a path. Every file passes through the one ingest
boundary (boundary.py): records are checked against the reader's declared
shape (shape.py) before they are read, and what becomes a turn is checked and
dated there, in one place. What readers share is here too: finding and
loading files (files.py), an agent's records as turns (agent.py), a tree of
messages as lines (branches.py), matching by text (by_text.py). The writer
names everything deterministically from the source's own ids
(``conversation_id``, ``turn_name``), so importing the same data twice lands
on the same paths instead of making duplicates.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

from ..format import ids
from .imported import ImportedConversation, ImportedTurn, Read

__all__ = ["ImportedConversation", "ImportedTurn", "Read", "conversation_id", "read", "turn_name"]

PROJECT = "project"  # conv import --from project: no tool's files, a project's side refs (services/projects.py)
PARALLEL_FROM = 50  # session files from which worker processes read them


def read(tool, path: Path, changed: Callable[[list[Path]], list[Path]] | None = None,
         steps=None, each: Callable[[list[ImportedConversation], Path], None] | None = None) -> Read:
    """The conversations at ``path`` as ``tool`` (a boundary.Reader) wrote them. For a source kept
    as a file a session, ``changed`` keeps those to read (the others are as
    they were when last imported whole), ``steps(what, total)`` is where
    progress goes (home/progress.py's); many files are read by worker
    processes (reading is half of an import), and ``each(conversations, file)``
    takes a file's conversations in this process as they come, while the
    workers read on."""
    from .boundary import read_file

    files = tool.files(Path(path))
    to_read = changed(files) if changed is not None and tool.per_session else files
    out = Read([], unchanged=len(files) - len(to_read), files=len(files), stamps=_stamps(to_read))
    seen: dict[str, ImportedConversation] = {}
    with steps("reading sessions", len(to_read)) if steps else nullcontext(lambda: None) as advance:
        for file, found in zip(to_read, _each(read_file, tool, to_read)):
            advance()
            kept = _distinct(found.conversations, seen, out.said)
            out.conversations += kept
            out.said += found.said
            if found.whole:
                out.whole[file] = found.conversations
            if each is not None and kept:
                each(kept, file)
    return out


def _stamps(files: list[Path]) -> dict:
    from ..home.imports import fingerprint

    out = {}
    for file in files:
        try:
            out[file] = fingerprint(file)
        except OSError:
            pass
    return out


def _each(read_file, tool, files: list[Path]):
    """Each file as read; many are read by worker processes."""
    if len(files) < PARALLEL_FROM:
        yield from (read_file(tool, file) for file in files)
        return
    from functools import partial

    from ..pool import workers

    pool = workers()
    try:
        yield from pool.map(partial(read_file, tool), files, chunksize=16)
    finally:  # Ctrl-C or a failure: what has not started never will
        pool.shutdown(cancel_futures=True)


def _distinct(conversations: list[ImportedConversation], seen: dict[str, ImportedConversation],
              said: list[str]) -> list[ImportedConversation]:
    """One conversation a source id (``seen``: those read so far): a copy of
    one already read is dropped; a different conversation under an id already
    taken keeps its turns under an id of its own ("ID~2"), said. Nothing is
    merged that the source kept apart."""
    kept = []
    for conversation in conversations:
        first = seen.get(conversation.source_id)
        if first is None:
            seen[conversation.source_id] = conversation
            kept.append(conversation)
            continue
        if _same(first, conversation):
            continue
        n = 2
        while f"{conversation.source_id}~{n}" in seen:
            n += 1
        said.append(f"{conversation.source} conversation {conversation.source_id} appears more than once, with "
                    f"other turns: imported as {conversation.source_id}~{n} too")
        conversation.source_id = f"{conversation.source_id}~{n}"
        seen[conversation.source_id] = conversation
        kept.append(conversation)
    return kept


def _same(a: ImportedConversation, b: ImportedConversation) -> bool:
    return [(t.role, t.content, t.source_id) for t in a.turns] == [(t.role, t.content, t.source_id) for t in b.turns]


def conversation_id(imported: ImportedConversation) -> str:
    """A conv id that depends only on the source and its id, so a second
    import of the same conversation finds the first one (conv's own export
    keeps the id it has)."""
    if imported.conv_id:
        return imported.conv_id
    digest = hashlib.sha256(f"{imported.source}:{imported.source_id}".encode()).digest()
    return ids.token_of_bytes(digest)


def turn_name(turn: ImportedTurn, index: int) -> str:
    """A turn name (``YYYYMMDD-HHMMSS.mmm-RAND-role``) whose time is the turn's
    and whose random part comes from its source id and position, so it is the
    same at every import (conv's own export keeps the name it has)."""
    if turn.name:
        return turn.name
    at = turn.created  # conv's form (iso()), as the boundary leaves it
    stamp = f"{at[0:4]}{at[5:7]}{at[8:10]}-{at[11:13]}{at[14:16]}{at[17:19]}.{at[20:23]}"
    digest = hashlib.sha256(f"{turn.source_id}/{index}".encode()).digest()
    return f"{stamp}-{ids.token_of_bytes(digest, 4)}-{turn.role}"


def shared_prefix(a: list[ImportedTurn], b: list[ImportedTurn]) -> int:
    """How many leading turns two branches have in common (by source id)."""
    count = 0
    for x, y in zip(a, b):
        if x.source_id != y.source_id:
            break
        count += 1
    return count
