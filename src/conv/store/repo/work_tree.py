"""A project's own git repository, as ``conv blame`` and ``conv origin`` ask
it (the git CLI in the work tree; nothing here knows a conversation): who
last changed each line of a file (``git blame``, whitespace and moves not
counting), the commits of a range with the lines each added and took out,
their trailers and conv's notes, the lines staged for the next commit,
where its hooks are, which repository a work tree is of; and conv's notes
written (``refs/notes/conv``) and carried to and from the project's remote
beside the side refs.

The repository may be anyone's (an MCP client names the folder): git runs
nothing of its configuration's here (no fsmonitor, external diff or
textconv), and a revision is refused before it can be read as an option."""

import os
import re

from ...errors import RefError, UsageError
from ...records import dataclass, field
from .diff_lines import changed_lines
from .side_refs import IDENTITY

NOTES = "refs/notes/conv"
THEIRS = "refs/notes/conv-fetched"  # the remote's notes, merged into conv's own (each note's ids, once each)
TRAILER = "Conv-Conversation"
SAFE = ("-c", "core.fsmonitor=false", "-c", "core.quotePath=false", "-c", "diff.external=", "-c",
        "core.untrackedCache=false")
_REVISION = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./@{}~^:+-]*")
_COMMIT = "\x1e"  # begins each commit of ``git log``'s output


@dataclass
class Blamed:
    """A line of the file as the commit that last changed it has it."""

    number: int  # in the file, from 1
    text: str
    commit: str
    time: int  # when the commit's change was authored (a rebase, a cherry-pick, an amend keep it), in seconds
    path: str  # the file's name in that commit
    boundary: bool = False  # the commit is the history's first (or beyond a shallow clone's end)


@dataclass
class Commit:
    sha: str
    time: int  # its author's time, in seconds
    parents: int
    subject: str
    trailers: list = field(default_factory=list)  # the conversation ids its Conv-Conversation trailers name
    noted: list = field(default_factory=list)  # and its note of conv's
    added: dict = field(default_factory=dict)  # file -> (line number, text) of each line it added
    removed: dict = field(default_factory=dict)  # file -> the lines it took out
    cut: bool = False  # a shallow clone's first commit: its parents are not here, nor what it changed


@dataclass
class _Ran:
    returncode: int
    stdout_bytes: bytes
    stderr: str

    @property
    def stdout(self) -> str:
        return self.stdout_bytes.decode("utf-8", "replace")


def _run(*args: str, stdin: bytes = b"") -> _Ran:
    """git with ``SAFE``, its input ``stdin`` (conv's notes are committed as conv's); FileNotFoundError when
    there is no git."""
    import subprocess

    done = subprocess.run(["git", *SAFE, *args], input=stdin, capture_output=True,
                          env={**os.environ, **IDENTITY, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"})
    return _Ran(done.returncode, done.stdout, done.stderr.decode("utf-8", "replace"))


def _git(root: str, *args: str, what: str, stdin: bytes = b"") -> str:
    try:
        done = _run("-C", root, *args, stdin=stdin)
    except FileNotFoundError:
        raise UsageError("this needs git", "Install git") from None
    if done.returncode:  # no such file or commit: a reference that is wrong (exit 1)
        raise RefError(f"{what}: {_last(done.stderr)}", "Name a file or commit of this work tree")
    return done.stdout


def blame(root: str, path: str, first: int | None = None, last: int | None = None) -> list[Blamed]:
    """Each line of ``path`` (``first``..``last`` when given), with the commit that made it as it is (``-w``: a
    change of spaces alone is not one; ``-M``, ``-C``: a line moved within the file, or from another file the same
    commit changed, keeps its commit and names the file it came from)."""
    span = ["-L", f"{first},{last or ''}"] if first else []  # FIRST, alone: to the end
    # --no-ignore-revs-file: a file the repository's config names is never read (git's error quotes its first line)
    try:
        out = _git(root, "blame", "--line-porcelain", "--no-textconv", "--no-ignore-revs-file", "-w", "-M", "-C",
                   *span, "--", path, what=f"git blame {path}")
    except RefError as exc:
        short = re.search(r"has only (\d+) lines?", exc.message)
        if short is None:
            raise
        raise RefError(f"{path} has only {short[1]} lines", f"Ask for lines 1 to {short[1]}") from None
    lines, entry = [], {}
    for line in out.split("\n"):
        if line.startswith("\t"):
            lines.append(Blamed(int(entry["number"]), line[1:], entry["commit"], int(entry.get("author-time") or 0),
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


def commits(root: str, spec: str, changes: bool = True) -> list[Commit]:
    """The commits of ``spec`` (one commit, or a range A..B), oldest first, each with its trailers and note,
    and (``changes``) the lines it added and took out: one ``git log`` for them all."""
    for side in spec.split("..", 1) if ".." in spec else [spec]:
        if side and not _REVISION.fullmatch(side) or ".." in side or not (side or ".." in spec):
            raise UsageError(f"{spec[:200]!r} is no commit or range conv reads", "e.g. HEAD, a1b2c3d, main..feature")
    out = _git(root, "log", "--reverse", "--no-color", "--no-ext-diff", "--no-textconv",
               *(["-p", "-U0", "-M", "--diff-merges=remerge"] if changes else []),  # a merge: what its resolution
               *([] if ".." in spec else ["--no-walk"]),                            # wrote (git 2.36 or later)
               f"--format={_COMMIT}%H%x00%at%x00%P%x00%s%x00%(trailers:key={TRAILER},valueonly,separator=%x1f)%x00",
               "--end-of-options", spec, "--", what=f"no commit or range {spec[:200]}")
    cut, noted, found = shallow(root), _notes(root), []
    for chunk in out.split(_COMMIT)[1:]:
        sha, when, parents, subject, trailers, diff = (chunk.split("\0", 5) + [""] * 5)[:6]
        commit = Commit(sha, int(when or 0), len(parents.split()), subject, _ids(trailers.replace("\x1f", "\n")),
                        _ids(noted.get(sha, "")), cut=sha in cut)
        if changes and not commit.cut:
            commit.added, commit.removed = changed_lines(diff)
        found.append(commit)
    if not found:  # a tree or a file named as a commit, or a range with none in it
        raise RefError(f"{spec[:200]} holds no commit" if ".." in spec else f"{spec[:200]} is no commit",
                       "Name a commit (git log shows them) or a range with commits in it, e.g. main..feature")
    return found


def linked(root: str, shas: list[str]) -> dict[str, list[str]]:
    """Of each commit of ``shas``, the conversations its trailers and conv's note name."""
    if not shas:
        return {}
    out = _git(root, "log", "--no-walk=unsorted", "--stdin", f"--format={_COMMIT}%H%x00"
               f"%(trailers:key={TRAILER},valueonly,separator=%x1f)", what="git log",
               stdin="".join(f"{sha}\n" for sha in shas).encode())
    noted, found = _notes(root), {}
    for chunk in out.split(_COMMIT)[1:]:
        sha, _, trailers = chunk.partition("\0")
        found[sha] = list(dict.fromkeys(_ids(trailers.replace("\x1f", "\n")) + _ids(noted.get(sha, ""))))
    return found


def staged(root: str) -> tuple[dict, dict]:
    """The lines the next commit adds and takes out (``git diff --cached``)."""
    return changed_lines(_git(root, "diff", "--cached", "-U0", "-M", "--no-color", "--no-ext-diff", "--no-textconv",
                         what="git diff --cached"))


def common_dir(root: str) -> str | None:
    """The repository a work tree is of (its worktrees share it), None when ``root`` is no git work tree now."""
    try:
        done = _run("-C", root, "rev-parse", "--path-format=absolute", "--git-common-dir")
    except (FileNotFoundError, OSError):
        return None
    return os.path.realpath(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None


def note(root: str, sha: str, conversations: list[str]) -> None:
    """conv's note on ``sha``: a Conv-Conversation line for each conversation that wrote it, after what the
    note said before (its other lines kept)."""
    was = _notes(root).get(sha, "")
    kept = [line for line in was.splitlines()
            if line.strip() and not any(line.strip() == f"{TRAILER}: {c}" for c in conversations)]
    text = "".join(f"{line}\n" for line in kept) + "".join(f"{TRAILER}: {c}\n" for c in conversations)
    if text.strip() == was.strip():
        return  # as it is: no commit of notes that changes nothing
    _git(root, "notes", "--ref", NOTES, "add", "-f", "-F", "-", sha, what=f"git notes add {sha}",
         stdin=text.encode())


def carry_notes(root: str, remote: str | None, push: bool) -> str | None:
    """conv's notes as ``remote`` has them merged into the project's (a note
    on the same commit: both notes' lines, once each), then, with ``push``,
    the merged notes pushed back; why not, when that failed (the side refs
    went anyway)."""
    if remote is None:
        return None
    fetched = _run("-C", root, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote,
                  f"+{NOTES}:{THEIRS}")
    if fetched.returncode == 0:
        merged = _run("-C", root, "notes", "--ref", NOTES, "merge", "-q", "-s", "cat_sort_uniq", THEIRS)
        if merged.returncode:
            return f"conv's notes from {remote} not merged: {_last(merged.stderr)}"
    elif "couldn't find remote ref" not in fetched.stderr:
        return f"conv's notes not fetched from {remote}: {_last(fetched.stderr)}"
    has = _run("-C", root, "rev-parse", "--verify", "-q", NOTES).returncode == 0
    if push and has:
        pushed = _run("-C", root, "push", "--quiet", "--no-verify", remote, f"{NOTES}:{NOTES}")
        if pushed.returncode:
            return f"conv's notes not pushed to {remote}: {_last(pushed.stderr)}"
    return None


def hooks_folder(root: str) -> tuple[str, bool]:
    """Where git looks for the project's hooks, as an absolute path, and whether that is the repository's
    own (.git/hooks, or a worktree's common one) rather than a folder core.hooksPath names (shared, or
    tracked)."""
    found = _git(root, "rev-parse", "--path-format=absolute", "--git-path", "hooks", what="git rev-parse").strip()
    own = _git(root, "rev-parse", "--path-format=absolute", "--git-common-dir", what="git rev-parse").strip()
    return os.path.normpath(found), os.path.normpath(found) == os.path.normpath(os.path.join(own, "hooks"))


def identity() -> tuple[str, str]:
    """The git name and e-mail of whoever runs conv, as git gives them here ("" where there is none)."""
    try:
        done = _run("config", "--get-regexp", r"^user\.(name|email)$")
    except (FileNotFoundError, OSError):
        return "", ""
    found = dict(line.partition(" ")[::2] for line in done.stdout.splitlines())
    return found.get("user.name", "").strip(), found.get("user.email", "").strip()


def _last(said: str) -> str:
    lines = said.strip().splitlines()
    return lines[-1] if lines else "git failed"


def _notes(root: str) -> dict[str, str]:
    """conv's note of each commit that has one (none: no notes of conv's in this repository)."""
    listed = _run("-C", root, "notes", "--ref", NOTES, "list")
    pairs = [line.split() for line in listed.stdout.splitlines()] if listed.returncode == 0 else []
    pairs = [p for p in pairs if len(p) == 2]
    if not pairs:
        return {}
    done = _run("-C", root, "cat-file", "--batch", stdin="".join(f"{blob}\n" for blob, _ in pairs).encode())
    notes, at, data = {}, 0, done.stdout_bytes if done.returncode == 0 else b""
    for blob, commit in pairs:
        head_end = data.find(b"\n", at)
        head = data[at:head_end].split() if head_end >= 0 else []
        if len(head) != 3 or not head[2].isdigit():
            break
        size = int(head[2])  # of a hostile note, its first MB:
        notes[commit] = data[head_end + 1:head_end + 1 + size][:1 << 20].decode("utf-8", "replace")
        at = head_end + 1 + size + 1
    return notes


def shallow(root: str) -> set[str]:
    """The commits a shallow clone's history is cut at (their parents are not here)."""
    found = _run("-C", root, "rev-parse", "--path-format=absolute", "--git-path", "shallow")
    try:
        with open(found.stdout.strip(), encoding="ascii", errors="replace") as listed:
            return set(listed.read().split())
    except OSError:
        return set()


def _ids(text: str) -> list[str]:
    """The conversation ids a trailer's or a note's lines name (a hostile one: only what an id may be)."""
    found = []
    for line in text.splitlines():
        value = line.split(":", 1)[1] if line.startswith(f"{TRAILER}:") else line
        value = value.strip()
        if re.fullmatch(r"[a-z0-9_-]{6,40}", value) and value not in found:
            found.append(value)
    return found
