"""aider, Paul Gauthier's pair programmer: its chats are Markdown,
``.aider.chat.history.md`` at the top of each git work tree it ran in
(reader.py), read by ``conv import`` (a work tree, a folder of them, or the
file) and the catch-up (the work tree conv runs in). aider has no hooks: no
capture; it takes no session in: no hand-off."""

from pathlib import Path

from ...home.project import root
from ..contract import Source

SOURCE = Source("aider", "aider", __name__)
HISTORY = ".aider.chat.history.md"


def work_tree() -> Path:
    """The git work tree around the folder conv runs in (the folder itself outside one): where aider writes."""
    return Path(root() or ".").absolute()
