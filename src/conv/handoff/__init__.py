"""``conv handoff``: a conversation written as a session of another tool, in
that tool's own format and place, so that the tool resumes it. One small
module a tool, each with ``write(turns, cwd, title) -> Written``; what a
tool's format cannot hold (files sent with a turn, a system prompt, an
answer's thinking) is left out and said by services/handoff.py."""

import importlib

from ..errors import UsageError
from ..records import dataclass

TOOLS = {"claude-code": "conv.handoff.claude_code", "codex": "conv.handoff.codex"}


@dataclass
class Written:
    """A session written: its id, its file, the command that resumes it."""

    session_id: str
    file: str
    resume: list[str]


def tool(name: str):
    module = TOOLS.get(name)
    if module is None:
        raise UsageError(f"conv hands off to no tool called {name!r}", f"Use one of: {', '.join(TOOLS)}")
    return importlib.import_module(module)


def write_lines(path, records: list[dict]) -> None:
    """A session file, one JSON record a line, written whole (it is new: nothing is replaced)."""
    import json
    import os

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        out.writelines(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    os.replace(tmp, path)
