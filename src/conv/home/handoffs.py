"""The sessions ``conv handoff`` wrote: for each (tool, session id), the
conversation it came from, how many turns it was handed (and their roles)
and the last of them, so that when the tool goes on with it and the capture
(or an import) reads it, the new turns come back into that conversation."""

import json

from . import paths


def _file():
    return paths.state_dir() / "handoffs.json"


def _all() -> dict:
    from .files import json_object

    return json_object(_file())


def remember(tool: str, session_id: str, conv_id: str, roles: list[str], last: str) -> None:
    from .files import write_atomic

    write_atomic(_file(), json.dumps({**_all(), f"{tool}:{session_id}": {"conv": conv_id, "roles": roles,
                                                                          "last": last}}))


def find(tool: str, session_id: str) -> dict | None:
    """What was handed off as this session ({conv, roles, last}), or None."""
    found = _all().get(f"{tool}:{session_id}")
    ok = (isinstance(found, dict) and isinstance(found.get("conv"), str) and isinstance(found.get("roles"), list)
          and isinstance(found.get("last"), str))
    return found if ok else None
