"""Which answer wrote a committed line: the one rule ``conv blame`` and
``conv origin`` share. A line is an answer's only when the answer's edits
wrote its text (spaces not counting: format/line_keys.py) into the same
file, in a session of the same project (its root, or its remote: a
teammate's clone), before the commit; time and file alone never make an
attribution. Of several answers that wrote it, the latest before the
commit (one the commit's trailers or note name, first), the others named. A line too short to say anything alone is the
answer's that wrote the lines around it in the same commit. A line no
answer wrote says why when it can, and where an answer wrote another
line in its place, that it changed since."""

import os
import re
from datetime import datetime, timezone
from functools import lru_cache

from ..format.line_keys import key
from ..records import dataclass, field

GENERATED = re.compile(r"(^|/)(vendor|node_modules|third_party|dist|build)/|\.(lock|min\.js|min\.css|pb\.go)$|"
                       r"(^|/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock|poetry\.lock|uv\.lock|"
                       r"go\.sum)$")


@dataclass
class Claim:
    """An answer whose edits wrote a line."""

    conv_id: str
    turn: str  # its name (it begins with its time)
    how: str  # "as written", "by the lines around it"
    others: list = field(default_factory=list)  # other conversations that wrote the same line
    edit: int = -1  # which of the turn's edits wrote it, and its place in that edit's text (-1: by the lines around)
    at: int = -1


@dataclass
class Project:
    root: str
    remote: str | None


def turn_time(name: str) -> float:
    """A turn's time from its name (YYYYMMDD-HHMMSS.mmm-…), in seconds."""
    moment = datetime.strptime(name[:19], "%Y%m%d-%H%M%S.%f").replace(tzinfo=timezone.utc)
    return moment.timestamp()


def claims(lines: list[tuple[str, str, int]], writers: dict, project: Project, linked: list = ()) \
        -> list[Claim | None]:
    """Of each line (its file in the commit, its text, the commit's time), the answer that wrote it, or None;
    of several, one of the ``linked`` conversations' (the commit's trailers and note name them) first."""
    out: list[Claim | None] = []
    for path, text, when in lines:
        found = key(text)
        candidates = [w for w in writers.get(found, ()) if _same_project(w, project) and _same_file(w.file, path,
                                                                                                   project.root)
                      and turn_time(w.turn) <= when] if found is not None else []
        if not candidates:
            out.append(None)
            continue
        latest = next((w for w in reversed(candidates) if w.conv_id in linked), candidates[-1])
        others = list(dict.fromkeys(w.conv_id for w in candidates if w.conv_id != latest.conv_id))
        out.append(Claim(latest.conv_id, latest.turn, "as written", others, latest.edit, latest.at))
    return _around(lines, out)


def _around(lines: list, found: list) -> list:
    """A short line (a brace, a blank) between two lines one answer wrote, of the same file and commit, is its."""
    for n, claim in enumerate(found):
        if claim is not None or key(lines[n][1]) is not None:
            continue
        before = next((found[m] for m in range(n - 1, -1, -1) if key(lines[m][1]) is not None), None)
        after = next((found[m] for m in range(n + 1, len(found)) if key(lines[m][1]) is not None), None)
        if before and after and before.turn == after.turn and lines[n][0] == lines[n - 1][0]:
            found[n] = Claim(before.conv_id, before.turn, "by the lines around it")
    return found


def _same_project(wrote, project: Project) -> bool:
    if wrote.project and _real(wrote.project) == _real(project.root):
        return True
    return bool(project.remote and wrote.remote and _plain(wrote.remote) == _plain(project.remote))


@lru_cache(maxsize=4096)
def _real(path: str) -> str:
    return os.path.realpath(path)


@lru_cache(maxsize=4096)
def _plain(remote: str) -> str:
    """A remote's URL as the same repository's (git@host:a/b.git, https://host/a/b, ssh://git@host/a/b.git)."""
    text = remote.strip().lower().removesuffix("/").removesuffix(".git")
    text = re.sub(r"^[a-z+]+://", "", text)
    text = re.sub(r"^[^@/]+@", "", text)
    return text.replace(":", "/", 1) if "/" not in text.split(":", 1)[0] else text


def _same_file(named: str, path: str, root: str) -> bool:
    """Whether an edit's file (relative to the project's root, or as the tool named it) is ``path`` (the root's)."""
    if named == path:
        return True
    full = os.path.normpath(named if os.path.isabs(named) else os.path.join(root, named))
    return full == os.path.normpath(os.path.join(root, path))


def why_none(path: str, when: int, earliest: float | None) -> str:
    """Why no answer wrote a line, where conv can say it."""
    if GENERATED.search(path):
        return "a generated or vendored file: no session's"
    if earliest is None:
        return "no captured session of this project"
    if when < earliest:
        return "committed before any captured session of this project"
    return "no session wrote this line"


def changed_since(lines: list, found: list) -> dict[int, Claim]:
    """The lines no answer wrote that stand where an answer's edit wrote another (a line changed since, by hand
    or otherwise): the next line an edit wrote, a few lines on, has that edit's line before it at this one's
    place, and the last line before, if the same edit's, agrees."""
    out = {}
    for n, claim in enumerate(found):
        if claim is not None or key(lines[n][1]) is None:
            continue
        after = next(((m - n, found[m]) for m in range(n + 1, min(n + 4, len(found)))
                      if found[m] is not None and found[m].at >= 0), None)
        if after is None or after[1].at - after[0] < 0:
            continue
        gap, wrote = after
        before = next(((n - m, found[m]) for m in range(n - 1, max(n - 4, -1), -1)
                       if found[m] is not None and found[m].at >= 0), None)
        if before is None or (before[1].turn, before[1].edit) != (wrote.turn, wrote.edit) or \
                before[1].at == wrote.at - gap - before[0]:
            out[n] = wrote
    return out
