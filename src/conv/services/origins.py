"""``conv blame FILE[:LINE[-LINE]]`` and ``conv origin [COMMIT | A..B]``:
where the code of a git work tree came from, from the conversations the
store holds (every tool's, captured or imported, and teammates' brought in
by ``conv import --from project``): each line's commit (git blame) and the
conversation and turn whose edit wrote its text (attribution.py's rule);
each commit's added lines by the conversation that wrote them, and those
none did, the conversations its Conv-Conversation trailers and conv's note
name first. The trailers are written at commit time by the hook ``conv
origin --link`` installs (connect/commit_hook.py), the notes by ``conv
origin --note``."""

import os
import time

from ..errors import UsageError
from ..format.line_keys import key
from ..home.project import here
from ..records import dataclass, field
from .attribution import NEAR, Asked, Project, changed_since, claims, turn_time, why_none
from .workspace import Workspace

NOTED = 3  # added lines a conversation must have written for conv origin --note to name it
SHALLOW = "a shallow clone: the history is cut at this commit"


@dataclass
class Written:
    """A conversation as a line's or a commit's writer: what a person needs to read it on."""

    conv_id: str
    short: str
    title: str
    source: str | None
    model: str | None
    turn: int  # its place in the conversation (conv show ID --turn N)
    date: str

    def to_dict(self) -> dict:
        return {"id": self.conv_id, "short": self.short, "title": self.title, "source": self.source or "conv",
                "model": self.model, **({"turn": self.turn} if self.turn else {}), "date": self.date}


@dataclass
class BlamedLine:
    number: int
    text: str
    commit: str
    by: Written | None
    how: str = ""  # how it was matched, or why no conversation wrote it
    others: list = field(default_factory=list)  # other conversations that wrote the same text

    def to_dict(self) -> dict:
        return {"line": self.number, "text": self.text, "commit": self.commit,
                "conversation": self.by.to_dict() if self.by else None, "how": self.how, "others": self.others}


@dataclass
class Blame:
    file: str
    root: str
    lines: list

    def to_dict(self) -> dict:
        return {"file": self.file, "root": self.root, "lines": [line.to_dict() for line in self.lines]}


@dataclass
class CommitOrigin:
    sha: str
    subject: str
    added: int  # lines the commit added
    by: list  # (Written, lines it wrote) each, the most first
    linked: list  # conversations its trailers or conv's note name
    unwritten: int  # added lines no conversation wrote
    why: str = ""  # why none wrote any, when that is so
    unknown: list = field(default_factory=list)  # of ``linked``, those this store holds no conversation of

    def to_dict(self) -> dict:
        return {"commit": self.sha, "subject": self.subject, "added": self.added,
                "conversations": [{**w.to_dict(), "lines": n} for w, n in self.by], "linked": self.linked,
                "linked_unknown": self.unknown, "unwritten": self.unwritten, "why": self.why}


@dataclass
class Origin:
    root: str
    commits: list

    def to_dict(self) -> dict:
        return {"root": self.root, "commits": [c.to_dict() for c in self.commits]}


def blame(ws: Workspace, path: str, first: int | None = None, last: int | None = None) -> Blame:
    """Each line of ``path`` (``first``..``last``: those alone, read among the lines around them as the whole
    file would be), with its commit and the conversation that wrote it."""
    if os.path.isdir(path):
        raise UsageError(f"{path} is a folder", "Name a file of it: conv blame FILE[:LINE[-LINE]]")
    project = _project(ws, os.path.dirname(os.path.abspath(path)) or ".")
    relative = os.path.relpath(os.path.realpath(path), project.root)
    tree = ws.store.work_tree
    lines = tree.blame(project.root, relative, *_window(path, first, last))
    if _binary(lines):
        raise UsageError(f"{path} is a binary file: no lines an edit wrote", "Name a text file")
    cut = tree.shallow(project.root)
    asked = [Asked(line.path, line.number, line.text, line.time, line.commit) for line in lines]
    linked = tree.linked(project.root, sorted({line.commit for line in lines} - {"0" * 40}))
    found = [None if line.commit in cut else claim
             for line, claim in zip(lines, claims(asked, _writers(ws, asked), project, linked))]
    said, earliest, since = _Said(ws), _earliest(ws, project), changed_since(asked, found)
    out = [BlamedLine(line.number, line.text, line.commit, said(claim) if claim else None,
                      claim.how if claim else SHALLOW if line.commit in cut else _changed(said(since[n])) if n in since
                      else why_none(line.path, line.time, earliest), claim.others if claim else [])
           for n, (line, claim) in enumerate(zip(lines, found))]
    return Blame(relative, project.root, [line for line in out if (first or 1) <= line.number <= (last or line.number)])


def origin(ws: Workspace, spec: str = "HEAD", where: str | None = None) -> Origin:
    project = _project(ws, where or os.getcwd())
    said, earliest, out = _Said(ws), _earliest(ws, project), []
    commits = ws.store.work_tree.commits(project.root, spec)
    writers = _writers(ws, [Asked("", 0, text, 0, "") for c in commits for found in c.added.values()
                            for _, text in found])  # every commit's lines looked up at once
    for commit in commits:
        linked = list(dict.fromkeys(commit.trailers + commit.noted))
        added, wrote = _wrote(ws, project, commit.added, commit.removed, commit.time, commit.sha, linked, writers)
        by = [(said.conversation(conv_id), n) for conv_id, n in wrote.items()]
        why = SHALLOW if commit.cut else "a merge that resolved nothing by hand" if commit.parents > 1 and not added \
            else why_none(added[0].path, commit.time, earliest) if added and not wrote else ""
        known = [conv_id for conv_id in linked if said.conversation(conv_id)]
        out.append(CommitOrigin(commit.sha, commit.subject, len(added), [b for b in by if b[0]], linked,
                                len(added) - sum(wrote.values()), why, [c for c in linked if c not in known]))
    return Origin(project.root, out)


def staged(ws: Workspace, where: str | None = None) -> list[str]:
    """The conversations whose edits the staged changes hold (the trailers the commit hook writes)."""
    project = _project(ws, where or os.getcwd())
    return list(_wrote(ws, project, *ws.store.work_tree.staged(project.root), int(time.time()), "staged", [])[1])


def note(ws: Workspace, spec: str = "HEAD", where: str | None = None) -> Origin:
    """conv's note (refs/notes/conv) on each commit of ``spec`` with a strong attribution, naming the
    conversations that wrote at least NOTED of its added lines (or all, when it added fewer)."""
    found = origin(ws, spec, where)
    tree = ws.store.work_tree
    for commit in found.commits:
        strong = [w.conv_id for w, n in commit.by if n >= min(NOTED, commit.added)]
        if strong:
            tree.note(found.root, commit.sha, strong)
            commit.linked = list(dict.fromkeys(commit.linked + strong))
    return found


def link(ws: Workspace, where: str | None = None, remove: bool = False):
    """conv's commit hook in the project's repository (``remove``: out again, the user's put back)."""
    from ..connect import commit_hook

    hooks, own = ws.store.work_tree.hooks_folder(_project(ws, where or os.getcwd()).root)
    return commit_hook.unlink(hooks) if remove else commit_hook.link(hooks, shared=not own)


def _wrote(ws: Workspace, project: Project, lines: dict, taken: dict, when: int, commit: str, linked: list,
           writers: dict | None = None) -> tuple[list[Asked], dict[str, int]]:
    """A change's added lines (none a reformatting or a move, within a file or to another, put back), and how
    many of them each conversation wrote, the most first."""
    gone = {key(line) for found in taken.values() for line in found} - {None}
    added = [Asked(path, number, text, when, commit) for path, found in lines.items() for number, text in found
             if key(text) is None or key(text) not in gone]
    wrote: dict[str, int] = {}
    for claim in claims(added, _writers(ws, added) if writers is None else writers, project, {commit: linked}):
        if claim is not None:
            wrote[claim.conv_id] = wrote.get(claim.conv_id, 0) + 1
    return added, dict(sorted(wrote.items(), key=lambda item: -item[1]))


def _window(path: str, first: int | None, last: int | None) -> tuple[int | None, int | None]:
    """The lines to blame for ``first``..``last``: NEAR more on each side (the rule reads a line among its
    neighbours), within the file as it is (a range past its end: as asked, for git to say so)."""
    if first is None:
        return None, None
    try:
        with open(path, "rb") as text:
            length = sum(1 for _ in text)
    except OSError:
        return first, last
    if first > length or last is not None and last > length:
        return first, last
    return max(1, first - 2 * NEAR), min(length, (length if last is None else last) + 2 * NEAR)


def _binary(lines: list) -> bool:
    return any("\0" in line.text for line in lines[:200])


def _changed(wrote: Written | None) -> str:
    return f"changed since turn {wrote.turn} of {wrote.short}" if wrote else "no session wrote this line"


def file_and_lines(target: str) -> tuple[str, int | None, int | None]:
    """FILE[:LINE[-LINE]] (a file whose own name holds a colon is taken whole when it is there); FIRST- is
    from FIRST to the end (last None)."""
    path, _, span = target.rpartition(":") if ":" in target and not os.path.exists(target) else (target, "", "")
    if not span:
        return target, None, None
    first, dash, last = span.partition("-")

    def number(said: str) -> bool:
        return said.isascii() and said.isdigit()  # 0-9 alone: str.isdigit takes ٣ and ³ too

    if not number(first) or (last and not number(last)) or int(first) < 1 or (last and int(last) < int(first)):
        raise UsageError(f"{target!r}: lines are LINE, FIRST-LAST or FIRST- (to the end), from 1",
                         "e.g. conv blame app.py:10-20")
    return path, int(first), int(last) if last else None if dash else int(first)


def _project(ws: Workspace, folder: str) -> Project:
    found = here(folder)
    if found is None:
        raise UsageError(f"{folder} is in no git work tree", "cd into a project (conv blame and origin read its git)")
    common_dir = ws.store.work_tree.common_dir
    return Project(found["root"], found.get("remote"), common_dir(found["root"]), common_dir)


def _writers(ws: Workspace, lines: list[Asked]) -> dict:
    return ws.index.refresh().writers([k for line in lines if (k := key(line.text)) is not None])


def _earliest(ws: Workspace, project: Project) -> float | None:
    """When the project's first conversation began (the time of its oldest turn), None when it has none."""
    first = ws.index.queries.first_turn(project.root, project.remote)
    return turn_time(first) if first else None


class _Said:
    """Each conversation's facts, read once however many lines it wrote."""

    def __init__(self, ws: Workspace):
        self.ws, self.known = ws, {}

    def __call__(self, claim) -> Written | None:
        return self.conversation(claim.conv_id, claim.turn)

    def conversation(self, conv_id: str, turn: str | None = None) -> Written | None:
        if (conv_id, turn) not in self.known:
            row = self.ws.index.queries.get(conv_id)
            names = self.ws.index.queries.turn_names(conv_id)
            number = names.index(turn) + 1 if turn in names else 0
            date = f"{turn[:4]}-{turn[4:6]}-{turn[6:8]}" if turn else (row.updated[:10] if row else "")
            self.known[(conv_id, turn)] = Written(conv_id, self.ws.index.queries.short_id(conv_id), row.title,
                                                  row.source, row.model, number, date) if row else None
        return self.known[(conv_id, turn)]
