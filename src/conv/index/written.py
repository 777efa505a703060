"""What the answers' edits wrote, line by line (the ``written`` table):
made as the turns are indexed, and looked up by ``conv blame`` and ``conv
origin``: for a committed line's key (format/line_keys.py), the answers that
wrote it, their conversation, time, project and file; and the lines each
edit took out, so that what a conversation wrote and then undid is no longer
its writing."""

from collections import Counter

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


def written_rows(turn_rowid: int, edits: list[tuple[str, str, str]]) -> list[tuple]:
    """(line key, turn, file, edit, place, removed) of each line ``edits`` ((file, text before, text after) each)
    wrote (a line of the text after that the text before did not hold: a replaced span's context is not
    written) or took out (removed: 1, a line of the text before that the text after does not hold)."""
    out = []
    for n, (file, before, after) in enumerate(edits):
        was = Counter(k for line in lines_of(before) if (k := key(line)) is not None)
        now = Counter(k for line in lines_of(after) if (k := key(line)) is not None)
        kept = Counter(was)
        for at, line in enumerate(lines_of(after)):
            found = key(line)
            if found is None:
                continue
            if kept[found] > 0:
                kept[found] -= 1
            else:
                out.append((found, turn_rowid, file, n, at, 0))
        out += [(k, turn_rowid, file, n, -1, 1) for k in was if now[k] == 0]
    return out


def writers(rows, keys: list[int]) -> dict[int, list[Wrote]]:
    """Of each key, the live answers that wrote such a line, oldest first: a line a later edit of the same
    conversation took out of the same file (and did not write again) is no longer its writing."""
    out: dict[int, list[Wrote]] = {}
    for start in range(0, len(keys), 500):  # (SQLite's bound on a statement's variables)
        chunk = sorted(set(keys[start:start + 500]))
        marks = ", ".join("?" * len(chunk))
        for line, conv_id, turn, file, project, remote, edit, at, source, removed in rows(
                "SELECT w.line, t.conv_id, t.name, w.file, t.project, t.remote, w.edit, w.at, t.source, w.removed "
                f"FROM written w JOIN turns t ON t.rowid = w.turn WHERE w.line IN ({marks}) AND t.trashed = 0 "
                "ORDER BY t.name, w.edit", chunk):
            found = out.setdefault(line, [])
            if removed:
                found[:] = [w for w in found if (w.conv_id, w.file) != (conv_id, file)]
            else:
                found.append(Wrote(conv_id, turn, file, project, remote, edit, at, source))
    return out
