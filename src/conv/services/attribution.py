"""Which answer wrote a committed line: the one rule ``conv blame`` and
``conv origin`` share. A line is an answer's only when the answer's edits
wrote its text (spaces not counting: format/line_keys.py) into the same
file, in a session of the same project (its root, or its remote: a
teammate's clone), before the commit; time and file alone never make an
attribution. Of several answers that wrote it, the latest before the
commit, the others named. A line too short to say anything alone is the
answer's that wrote the lines around it in the same commit. A line no
answer wrote says why when it can."""

import os
import re
from datetime import datetime, timezone

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
    how: str  # "as written", "re-spaced", "by the lines around it"
    others: list = field(default_factory=list)  # other conversations that wrote the same line


@dataclass
class Project:
    root: str
    remote: str | None


def turn_time(name: str) -> float:
    """A turn's time from its name (YYYYMMDD-HHMMSS.mmm-…), in seconds."""
    moment = datetime.strptime(name[:19], "%Y%m%d-%H%M%S.%f").replace(tzinfo=timezone.utc)
    return moment.timestamp()


def claims(lines: list[tuple[str, str, int]], writers: dict, project: Project) -> list[Claim | None]:
    """Of each line (its file in the commit, its text, the commit's time), the answer that wrote it, or None."""
    out: list[Claim | None] = []
    for path, text, when in lines:
        found = key(text)
        candidates = [w for w in writers.get(found, ()) if _same_project(w, project) and _same_file(w.file, path,
                                                                                                   project.root)
                      and turn_time(w.turn) <= when] if found is not None else []
        if not candidates:
            out.append(None)
            continue
        latest = candidates[-1]
        others = list(dict.fromkeys(w.conv_id for w in candidates if w.conv_id != latest.conv_id))
        out.append(Claim(latest.conv_id, latest.turn, "as written", others))
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
    if wrote.project and os.path.realpath(wrote.project) == os.path.realpath(project.root):
        return True
    return bool(project.remote and wrote.remote and _plain(wrote.remote) == _plain(project.remote))


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
