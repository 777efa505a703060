"""A conversation written as another tool's session (``conv handoff``): what
each source's ``handoff.write(turns, cwd, title)`` gives back, and the one
way a session file is written."""

import json
import os

from ..records import dataclass


@dataclass
class Written:
    """A session written: its id, its file, the command that resumes it."""

    session_id: str
    file: str
    resume: list[str]


def write_lines(path, records: list[dict]) -> None:
    """A session file, one JSON record a line, written whole (it is new: nothing is replaced)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        out.writelines(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    os.replace(tmp, path)
