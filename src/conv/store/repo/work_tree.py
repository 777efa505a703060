"""A project's own git repository, as ``conv blame`` and ``conv origin`` ask
it (the git CLI in the work tree; nothing here knows a conversation): who
last changed each line of a file (``git blame``, whitespace and moves not
counting), the commits of a range, the lines a commit added, its trailers
and its note of conv's, the lines staged for the next commit, where its
hooks are; and conv's notes written (``refs/notes/conv``) and carried to
and from the project's remote beside the side refs."""

import os
import re

from ...errors import UsageError
from ...records import dataclass, field
from .gitcli import run

NOTES = "refs/notes/conv"
THEIRS = "refs/notes/conv-fetched"  # the remote's notes, merged into conv's own (each note's ids, once each)
TRAILER = "Conv-Conversation"
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


@dataclass
class Blamed:
    """A line of the file as the commit that last changed it has it."""

    number: int  # in the file, from 1
    text: str
    commit: str
    time: int  # the commit's, as its committer made it (seconds)
    path: str  # the file's name in that commit
    boundary: bool = False  # the commit is the history's first (or beyond a shallow clone's end)


@dataclass
class Commit:
    sha: str
    time: int
    parents: int
    subject: str
    trailers: list = field(default_factory=list)  # the conversation ids its Conv-Conversation trailers name
    noted: list = field(default_factory=list)  # and its note of conv's


def _git(root: str, *args: str, what: str) -> str:
    try:
        done = run("-C", root, *args)
    except FileNotFoundError:
        raise UsageError("this needs git", "Install git") from None
    if done.returncode:
        raise UsageError(f"{what}: {_last(done.stderr)}", "Name a file or commit of this work tree")
    return done.stdout


def blame(root: str, path: str, first: int | None = None, last: int | None = None) -> list[Blamed]:
    """Each line of ``path`` (``first``..``last`` when given), with the commit that made it as it is (``-w``: a
    change of spaces alone is not one; ``-M``, ``-C``: a line moved within the file, or from another file the same
    commit changed, keeps its commit and names the file it came from)."""
    span = ["-L", f"{first},{last}"] if first else []
    out = _git(root, "blame", "--line-porcelain", "-w", "-M", "-C", *span, "--", path, what=f"git blame {path}")
    lines, entry = [], {}
    for line in out.split("\n"):
        if line.startswith("\t"):
            lines.append(Blamed(int(entry["number"]), line[1:], entry["commit"], int(entry.get("committer-time", 0)),
                                entry.get("filename", path), "boundary" in entry))
            entry = {}
        elif not entry:
            parts = line.split(" ")
            if len(parts) >= 3:
                entry = {"commit": parts[0], "number": parts[2]}
        else:
            name, _, value = line.partition(" ")
            entry[name] = value
    return lines


def commits(root: str, spec: str) -> list[Commit]:
    """The commits of ``spec`` (one commit, or a range A..B), oldest first, each with its trailers and note."""
    shas = _git(root, "rev-list", "--reverse", spec, what=f"git rev-list {spec}").split() if ".." in spec \
        else [_git(root, "rev-parse", "--verify", f"{spec}^{{commit}}", what=f"no commit {spec}").strip()]
    out = []
    for sha in shas:
        info = _git(root, "show", "-s", f"--format=%ct%x00%P%x00%s%x00%(trailers:key={TRAILER},valueonly)",
                    sha, what=f"git show {sha}")
        when, parents, subject, trailers = (info.split("\0") + ["", "", ""])[:4]
        out.append(Commit(sha, int(when or 0), len(parents.split()), subject, _ids(trailers), _ids(_note(root, sha))))
    return out


def added(root: str, sha: str) -> tuple[dict, dict]:
    """The lines ``sha`` added to each file (its new name, a renamed file's too), as (line number, text), and
    the lines it took out of each (what a reformatting or a move took out, to be put back)."""
    return _changed(_git(root, "show", "--format=", "-U0", "-M", "--no-color", "--no-ext-diff", sha,
                         what=f"git show {sha}"))


def staged(root: str) -> tuple[dict, dict]:
    """The lines the next commit adds and takes out (``git diff --cached``)."""
    return _changed(_git(root, "diff", "--cached", "-U0", "-M", "--no-color", "--no-ext-diff",
                         what="git diff --cached"))


def note(root: str, sha: str, conversations: list[str]) -> None:
    """conv's note on ``sha``: a Conv-Conversation line for each conversation that wrote it (the note replaced)."""
    text = "".join(f"{TRAILER}: {c}\n" for c in conversations)
    _git(root, "notes", "--ref", NOTES, "add", "-f", "-m", text, sha, what=f"git notes add {sha}")


def carry_notes(root: str, remote: str | None, push: bool) -> str | None:
    """conv's notes as ``remote`` has them merged into the project's (a note
    on the same commit: both notes' lines, once each), then, with ``push``,
    the merged notes pushed back; why not, when that failed (the side refs
    went anyway)."""
    if remote is None:
        return None
    fetched = run("-C", root, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote, f"+{NOTES}:{THEIRS}")
    if fetched.returncode == 0:
        merged = run("-C", root, "notes", "--ref", NOTES, "merge", "-q", "-s", "cat_sort_uniq", THEIRS)
        if merged.returncode:
            return f"conv's notes from {remote} not merged: {_last(merged.stderr)}"
    elif "couldn't find remote ref" not in fetched.stderr:
        return f"conv's notes not fetched from {remote}: {_last(fetched.stderr)}"
    has = run("-C", root, "rev-parse", "--verify", "-q", NOTES).returncode == 0
    if push and has:
        pushed = run("-C", root, "push", "--quiet", "--no-verify", remote, f"{NOTES}:{NOTES}")
        if pushed.returncode:
            return f"conv's notes not pushed to {remote}: {_last(pushed.stderr)}"
    return None


def hooks_folder(root: str) -> str:
    """Where git looks for the project's hooks (core.hooksPath, or .git/hooks), as an absolute path."""
    found = _git(root, "rev-parse", "--git-path", "hooks", what="git rev-parse --git-path hooks").strip()
    return os.path.normpath(os.path.join(root, found))


def _last(said: str) -> str:
    lines = said.strip().splitlines()
    return lines[-1] if lines else "git failed"


def _note(root: str, sha: str) -> str:
    try:
        done = run("-C", root, "notes", "--ref", NOTES, "show", sha)
    except FileNotFoundError:
        return ""
    return done.stdout if done.returncode == 0 else ""


def _ids(text: str) -> list[str]:
    """The conversation ids a trailer's or a note's lines name (a hostile one: only what an id may be)."""
    found = []
    for line in text.splitlines():
        value = line.split(":", 1)[1] if line.startswith(f"{TRAILER}:") else line
        value = value.strip()
        if re.fullmatch(r"[a-z0-9_-]{6,40}", value) and value not in found:
            found.append(value)
    return found


def _changed(diff: str) -> tuple[dict, dict]:
    added: dict[str, list[tuple[int, str]]] = {}
    removed: dict[str, list[str]] = {}
    path, old, number = None, None, 0
    for line in diff.split("\n"):
        if line.startswith("--- "):
            source = line[4:]
            old = None if source == "/dev/null" else source[2:] if source.startswith("a/") else source
        elif line.startswith("+++ "):
            target = line[4:]
            path = None if target == "/dev/null" else target[2:] if target.startswith("b/") else target
            if path is not None:
                added.setdefault(path, [])
        elif line.startswith("@@"):
            found = _HUNK.match(line)
            number = int(found[1]) if found else 0
        elif line.startswith("+") and path is not None:
            added[path].append((number, line[1:]))
            number += 1
        elif line.startswith("-") and (path or old) is not None:
            removed.setdefault(path or old, []).append(line[1:])
        elif line.startswith(" "):
            number += 1
    return added, removed
