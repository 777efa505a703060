"""Which coding agents the user connected (``conv connect``), user-wide or
for a project only, and for each settings file conv changed, its bytes
before and a digest of what conv wrote: ``--remove`` puts them back when
nothing else changed the file since. Read by every capture (one small
file): nothing is captured for a tool the user did not connect, and a tool
connected for a project captures that project's sessions only. Folders kept
out of capture altogether (``capture.never``) are said here too."""

import json
import os

from . import paths


def _file():
    return paths.state_dir() / "connected.json"


def folder():
    return paths.state_dir()


def records() -> dict:
    """tool -> settings file -> {"before": base64 bytes or None, "after": sha256 of conv's write, "made": folders,
    and for a project's: "project" (its root), "excluded" (conv added its line to the project's exclude)}."""
    from .files import json_object

    found = json_object(_file())
    return found if all(isinstance(v, dict) for v in found.values()) else {}


def save(found: dict) -> None:
    from .files import write_atomic

    write_atomic(_file(), json.dumps(found, indent=1))


def connected(tool: str) -> bool:
    """Connected at all, user-wide or for a project."""
    return bool(records().get(tool))


def projects(tool: str) -> list[str] | None:
    """The projects ``tool`` is connected for alone; None when it is connected user-wide."""
    entries = [e for e in records().get(tool, {}).values() if isinstance(e, dict)]
    if any(not isinstance(e.get("project"), str) for e in entries):
        return None
    return sorted({e["project"] for e in entries})


def covers(tool: str, cwd) -> bool:
    """Whether a session of ``tool`` worked on in folder ``cwd`` is captured:
    the tool is connected user-wide, or for a project that holds ``cwd``."""
    if not connected(tool):
        return False
    roots = projects(tool)
    return roots is None or (isinstance(cwd, str) and any(within(cwd, root) for root in roots))


def within(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or inside it (as written, and with links resolved)."""
    for a, b in ((path, folder), (os.path.realpath(path), os.path.realpath(folder))):
        a, b = os.path.normpath(a), os.path.normpath(b)
        if a == b or a.startswith(b.rstrip(os.sep) + os.sep):
            return True
    return False


def kept_out(cwd, never) -> str | None:
    """The folder of ``never`` (capture.never) that holds ``cwd``, if any."""
    if not isinstance(cwd, str):
        return None
    return next((folder for folder in never or () if within(cwd, os.path.expanduser(folder))), None)
