"""Reading conversations for the index, a chunk at a time: where each one is
in a commit and its files the index has not seen, parsed. A build of many
runs this in worker processes, so parsing (half of a build) takes the other
cores while the builder writes SQLite; what comes back is plain data, cheap
to pass between processes."""

import json
from collections import namedtuple
from pathlib import Path

from ..errors import RefError, StoreError
from ..format.model import META_FILE, Conversation
from ..records import replace
from ..store import Store

# One conversation of a chunk as the commit has it. ``files`` (turn name ->
# blob id) is None when it is in neither the store nor the trash; ``error``
# says why it cannot be read; else ``conv`` is its metadata (no turns) and
# ``turns`` the turn files not indexed yet, as (name, role, text, usage, usage
# as JSON, feedback, model, edits: (file, text before, text after) of each edit
# that happened). A named tuple: cheap to pass back from a worker process.
Found = namedtuple("Found", "conv_id trashed files conv error turns", defaults=(False, None, None, None, ()))


def read_chunk(store: Store | str, commit: str, indexed: dict[str, dict[str, str]], ahead: bool) -> list[Found]:
    """Each conversation of ``indexed`` (id -> the turn files the index holds,
    name -> blob id) as ``commit`` has it, reading only the files not indexed
    as they are; ``ahead``: all of them in one go first. ``store`` is a path
    in a worker process."""
    store = store if isinstance(store, Store) else _worker_store(store)
    placed = {}
    for conv_id in indexed:
        for trashed in (False, True):
            try:
                placed[conv_id] = (trashed, store.files(conv_id, commit, trashed))
                break
            except RefError:
                continue  # not under this root
            except StoreError as exc:  # there but unreadable
                placed[conv_id] = (trashed, exc)
                break
    if ahead:  # conversation.md is never indexed as a turn: always read
        store.preload(commit, store.read_blobs(
            [sha for conv_id, (_, files) in placed.items() if isinstance(files, dict)
             for name, sha in files.items() if _unindexed(indexed[conv_id], name, sha)]))
    out = []
    for conv_id, known in indexed.items():
        if conv_id not in placed:
            out.append(Found(conv_id))
            continue
        trashed, files = placed[conv_id]
        try:
            if isinstance(files, StoreError):
                raise files
            conv = store.read(conv_id, commit, trashed, lambda name, sha: _unindexed(known, name, sha), files)
        except StoreError as exc:
            out.append(Found(conv_id, trashed, {}, error=exc.message))
            continue
        out.append(_found(conv_id, trashed, files, conv, conv.turns))
    return out


def as_found(store: Store, commit: str, conv: Conversation, turns: list) -> Found:
    """A conversation ``commit`` holds as it was written there (``turns``: all of
    them), as if read: only its file names and blob ids are looked up."""
    return _found(conv.id, False, store.files(conv.id, commit), replace(conv, turns=[]), turns)


def _found(conv_id: str, trashed: bool, files: dict[str, str], conv: Conversation, turns: list) -> Found:
    rows = [(t.name, t.role, t.content, t.usage, json.dumps(t.usage) if t.usage else None, t.feedback, t.model,
             [(e.get("file") or e["path"], e.get("before") or "", e.get("after") or "") for e in t.edits or ()
              if not e.get("failed")])
            for t in turns]
    conv.turns, conv.meta = [], None  # less to pass back
    return Found(conv_id, trashed, {name[:-3]: sha for name, sha in files.items() if name != META_FILE}, conv,
                 turns=rows)


def _unindexed(known: dict[str, str], name: str, sha: str) -> bool:
    """Whether the file ``name`` (blob ``sha``) is not in the index as it is now."""
    return known.get(name[:-3]) != sha


_stores: dict[str, Store] = {}


def _worker_store(path: str) -> Store:
    """The store at ``path``, opened once per worker (its trees are read once per commit)."""
    if path not in _stores:
        _stores[path] = Store(Path(path))
    return _stores[path]
