"""What the answers' edits wrote, line by line (the ``written`` table):
made as the turns are indexed, and looked up by ``conv blame`` and ``conv
origin``: for a committed line's key (format/line_keys.py), the answers that
wrote it, their conversation, time, project and file."""

from ..format.line_keys import key, lines_of
from ..records import dataclass


@dataclass
class Wrote:
    """An answer that wrote a line: its conversation, turn (its name begins with its time), the file as the edit
    named it, the project (root, remote) it was worked on in, which edit of it and the line's place in that."""

    conv_id: str
    turn: str
    file: str
    project: str | None
    remote: str | None
    edit: int
    at: int
    source: str | None


def written_rows(turn_rowid: int, edits: list[tuple[str, str]]) -> list[tuple]:
    """(line key, turn, file, edit, place) of each line ``edits`` ((file, text written) each) wrote."""
    out = []
    for n, (file, text) in enumerate(edits):
        for at, line in enumerate(lines_of(text)):
            found = key(line)
            if found is not None:
                out.append((found, turn_rowid, file, n, at))
    return out


def writers(rows, keys: list[int]) -> dict[int, list[Wrote]]:
    """Of each key, the live answers that wrote such a line, oldest first."""
    out: dict[int, list[Wrote]] = {}
    for start in range(0, len(keys), 500):  # (SQLite's bound on a statement's variables)
        chunk = sorted(set(keys[start:start + 500]))
        marks = ", ".join("?" * len(chunk))
        for line, conv_id, turn, file, project, remote, edit, at, source in rows(
                "SELECT w.line, t.conv_id, t.name, w.file, t.project, t.remote, w.edit, w.at, t.source "
                f"FROM written w JOIN turns t ON t.rowid = w.turn WHERE w.line IN ({marks}) AND t.trashed = 0 "
                "ORDER BY t.name", chunk):
            out.setdefault(line, []).append(Wrote(conv_id, turn, file, project, remote, edit, at, source))
    return out
