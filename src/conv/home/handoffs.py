"""The sessions ``conv handoff`` wrote: for each (tool, session id), the
conversation it came from, how many turns it was handed (and their roles),
the last of them and the file written, so that when the tool goes on with it
and the capture (or an import) reads it, the new turns come back into that
conversation; and so that a purge of the conversation takes the file too
(``forget``). Changed under a lock: hand-offs at once each keep theirs."""

import json
import os
from contextlib import contextmanager

from . import paths


def _file():
    return paths.state_dir() / "handoffs.json"


def _all() -> dict:
    from .files import json_object

    return json_object(_file())


def remember(tool: str, session_id: str, conv_id: str, roles: list[str], last: str, file: str) -> None:
    with _locked():
        _save({**_all(), f"{tool}:{session_id}": {"conv": conv_id, "roles": roles, "last": last, "file": file}})


def forget(conv_ids) -> None:
    """The sessions handed off from these conversations (purged): their files gone, and the record of them."""
    gone = set(conv_ids)
    with _locked():
        found = _all()
        for entry in found.values():
            if isinstance(entry, dict) and entry.get("conv") in gone and isinstance(entry.get("file"), str):
                try:
                    os.unlink(entry["file"])
                except OSError:
                    pass  # gone already, or the tool moved it
        kept = {key: entry for key, entry in found.items() if not (isinstance(entry, dict)
                                                                    and entry.get("conv") in gone)}
        if kept != found:
            _save(kept)


def _save(found: dict) -> None:
    from .files import write_atomic

    write_atomic(_file(), json.dumps(found))


@contextmanager
def _locked():
    import fcntl

    _file().parent.mkdir(parents=True, exist_ok=True)
    with open(_file().with_name("handoffs.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def find(tool: str, session_id: str) -> dict | None:
    """What was handed off as this session ({conv, roles, last}), or None."""
    found = _all().get(f"{tool}:{session_id}")
    ok = (isinstance(found, dict) and isinstance(found.get("conv"), str) and isinstance(found.get("roles"), list)
          and isinstance(found.get("last"), str))
    return found if ok else None
