"""Which answer wrote a committed line: the one rule ``conv blame`` and
``conv origin`` share. A line is an answer's only when the answer's edits
wrote its text (spaces not counting: format/line_keys.py; a replaced span's
context is not written, and what a later edit of the same conversation took
out is no longer its writing: index/written.py) into the same file, in a
session of the same project (its root, a worktree of the same repository,
or a clone of the same remote: a teammate's), before the change was
authored; time and file alone never make an attribution.

A line anyone might write (``import os``, ``return None``: under
STRONG characters) is an answer's only beside a line of the same change that
only its conversation could have written: one of its longer lines, in the
same file and commit, at most NEAR lines away. A line too short to say
anything (a brace, a blank) is the conversation's that wrote the lines
around it.
Of several answers that wrote a line, the latest before the change (one the
commit's trailers or note name, first), the others named. A line no answer
wrote says why when it can, and where an answer's edit wrote another line in
its place, that it changed since."""

import os
import re
from collections.abc import Callable
from datetime import datetime, timezone
from functools import lru_cache

from ..format.line_keys import key
from ..records import dataclass, field

STRONG = 16  # characters (spaces left out) a line needs to be an answer's on its own
NEAR = 4  # lines: how far a line anyone might write may be from the answer's own for it to be the answer's too
GENERATED = re.compile(r"(^|/)(vendor|node_modules|third_party|dist|build)/|\.(lock|min\.js|min\.css|pb\.go)$|"
                       r"(^|/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock|poetry\.lock|uv\.lock|"
                       r"go\.sum)$")


@dataclass
class Asked:
    """A committed (or staged) line: its file as that commit names it, its place there, its text, when its
    change was authored (seconds), and the commit."""

    path: str
    number: int
    text: str
    when: int
    commit: str


@dataclass
class Claim:
    """An answer whose edits wrote a line."""

    conv_id: str
    turn: str  # its name (it begins with its time)
    how: str  # "as written", "beside its own lines", "by the lines around it"
    others: list = field(default_factory=list)  # other conversations that wrote the same line
    edit: int = -1  # which of the turn's edits wrote it, and its place in that edit's text (-1: by the lines around)
    at: int = -1


@dataclass
class Project:
    root: str
    remote: str | None
    common: str | None = None  # its repository's git folder (worktrees share it)
    common_of: Callable[[str], str | None] | None = None  # another work tree's, when it is still there


def turn_time(name: str) -> float:
    """A turn's time from its name (YYYYMMDD-HHMMSS.mmm-…), in seconds."""
    moment = datetime.strptime(name[:19], "%Y%m%d-%H%M%S.%f").replace(tzinfo=timezone.utc)
    return moment.timestamp()


def claims(lines: list[Asked], writers: dict, project: Project, linked: dict | None = None) -> list[Claim | None]:
    """Of each line, the answer that wrote it, or None; of several, one of the conversations ``linked`` names
    for its commit (commit -> ids: its trailers and note) first."""
    same = _Same(project)
    found: list[Claim | None] = []
    for line in lines:
        k = key(line.text)
        candidates = [w for w in writers.get(k, ()) if same.file(w.file, line.path) and same.project(w)
                      and turn_time(w.turn) < line.when + 1] if k is not None else []  # (git's time: whole seconds)
        if not candidates:
            found.append(None)
            continue
        named = (linked or {}).get(line.commit, ())
        latest = next((w for w in reversed(candidates) if w.conv_id in named), candidates[-1])
        others = list(dict.fromkeys(w.conv_id for w in candidates if w.conv_id != latest.conv_id))
        found.append(Claim(latest.conv_id, latest.turn, "as written", others, latest.edit, latest.at))
    return _around(lines, _beside_its_own(lines, found))


def _strong(text: str) -> bool:
    return len("".join(text.split())) >= STRONG


def _beside_its_own(lines: list[Asked], found: list) -> list:
    """A line anyone might write kept only near a line of the same change only its answer could have written."""
    own = [n for n, claim in enumerate(found) if claim is not None and _strong(lines[n].text)]
    out = list(found)
    for n, claim in enumerate(found):
        if claim is None or _strong(lines[n].text):
            continue
        near = any(found[m].conv_id == claim.conv_id and _together(lines[m], lines[n]) for m in own)
        out[n] = Claim(claim.conv_id, claim.turn, "beside its own lines", claim.others, claim.edit, claim.at) \
            if near else None
    return out


def _together(one: Asked, other: Asked) -> bool:
    return one.path == other.path and one.commit == other.commit and abs(one.number - other.number) <= NEAR


def _around(lines: list[Asked], found: list) -> list:
    """A short line (a brace, a blank) between two lines of one conversation, of the same file and commit, is the
    earlier one's answer's."""
    keyed = [n for n, line in enumerate(lines) if key(line.text) is not None]
    for n, claim in enumerate(found):
        if claim is not None or key(lines[n].text) is not None:
            continue
        before = next((m for m in reversed(keyed) if m < n), None)
        after = next((m for m in keyed if m > n), None)
        if before is None or after is None or found[before] is None or found[after] is None:
            continue
        if found[before].conv_id == found[after].conv_id and _together(lines[before], lines[n]) and \
                _together(lines[after], lines[n]):
            found[n] = Claim(found[before].conv_id, found[before].turn, "by the lines around it")
    return found


class _Same:
    """The same project and the same file, as the edits named them."""

    def __init__(self, project: Project):
        self.project_, self.root = project, _real(project.root)

    def project(self, wrote) -> bool:
        project = self.project_
        if wrote.project and _real(wrote.project) == self.root:
            return True
        if project.remote and wrote.remote and _plain(wrote.remote) == _plain(project.remote):
            return True
        return bool(wrote.project and project.common and project.common_of
                    and _common(wrote.project, project.common_of) == project.common)

    def file(self, named: str, path: str) -> bool:
        """Whether an edit's file (relative to the project's root, or as the tool named it) is ``path``."""
        if named == path:
            return True
        full = os.path.normpath(named if os.path.isabs(named) else os.path.join(self.project_.root, named))
        return full == os.path.normpath(os.path.join(self.project_.root, path))


@lru_cache(maxsize=4096)
def _real(path: str) -> str:
    return os.path.realpath(path)


@lru_cache(maxsize=256)
def _common(root: str, common_of) -> str | None:
    return common_of(root) if os.path.isdir(root) else None


@lru_cache(maxsize=4096)
def _plain(remote: str) -> str:
    """A remote's URL as the same repository's (git@host:a/b.git, https://host/a/b, ssh://git@host/a/b.git)."""
    text = remote.strip().lower().removesuffix("/").removesuffix(".git")
    text = re.sub(r"^[a-z+]+://", "", text)
    text = re.sub(r"^[^@/]+@", "", text)
    return text.replace(":", "/", 1) if "/" not in text.split(":", 1)[0] else text


def why_none(path: str, when: int, earliest: float | None) -> str:
    """Why no answer wrote a line, where conv can say it."""
    if GENERATED.search(path):
        return "a generated or vendored file: no session's"
    if earliest is None:
        return "no captured session of this project"
    if when < earliest:
        return "committed before any captured session of this project"
    return "no session wrote this line"


def changed_since(lines: list[Asked], found: list) -> dict[int, Claim]:
    """The lines no answer wrote that stand where an answer's edit wrote another (a line changed since, by hand
    or otherwise): between two lines of the same answer, the next of them a line of an edit that had a line
    before it, at this one's place."""
    out = {}
    claimed = [n for n, claim in enumerate(found) if claim is not None and claim.at >= 0]
    for n, claim in enumerate(found):
        if claim is not None or key(lines[n].text) is None:
            continue
        before = next((m for m in reversed(claimed) if m < n and n - m <= NEAR), None)
        after = next((m for m in claimed if m > n and m - n <= NEAR), None)
        if before is None or after is None or found[before].conv_id != found[after].conv_id:
            continue
        wrote, gap, behind = found[after], after - n, found[before]
        if wrote.at - gap >= 0 and (behind.edit != wrote.edit or behind.at == wrote.at - gap - (n - before)):
            out[n] = wrote
    return out
