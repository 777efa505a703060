"""Which coding agents the user connected (``conv connect``), and for each
settings file conv changed, its bytes before and a digest of what conv
wrote: ``--remove`` puts them back when nothing else changed the file since.
Read by every capture (one small file): nothing is captured for an agent
the user did not connect."""

import json

from . import paths


def _file():
    return paths.state_dir() / "connected.json"


def records() -> dict:
    """agent -> settings file -> {"before": base64 bytes or None, "after": sha256 of conv's write}."""
    from .files import json_object

    found = json_object(_file())
    return found if all(isinstance(v, dict) for v in found.values()) else {}


def save(found: dict) -> None:
    from .files import write_atomic

    write_atomic(_file(), json.dumps(found, indent=1))


def connected(agent: str) -> bool:
    return bool(records().get(agent))
