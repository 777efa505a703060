"""Side refs in a project's own repository (``refs/conv/NAME``), moved with
the git CLI: the project's copies of its remote's side refs brought up to
date, their trees listed and files read (nothing of them enters the store
until store/project_refs.py has had them checked), and a person's own ref
placed as one commit of what it holds now, no history (what they deleted
or purged leaves the remote with its garbage), pushed only over the commit
the remote was seen to hold (a lease).
Never a branch, never fetched by a plain clone or fetch, never pushed unless
asked."""

import os
import re

from ...errors import SyncError, UsageError
from ...records import dataclass
from . import gitcli
from .batch import answered
from .remotes import git_reason

SIDE = "refs/conv/"
IDENTITY = {"GIT_AUTHOR_NAME": "conv", "GIT_AUTHOR_EMAIL": "conv@localhost", "GIT_COMMITTER_NAME": "conv",
            "GIT_COMMITTER_EMAIL": "conv@localhost"}
# The name a person's side ref has (refs/conv/NAME): their git e-mail, any
# other byte written %XX; one level, never a name git refuses (``..``, ``.lock``).
NAME_RE = re.compile(r"(?!.*\.\.)(?!.*\.lock\Z)(?!.*\.\Z)[A-Za-z0-9%][A-Za-z0-9._@+%-]{0,199}\Z")
_MOVED = ("non-fast-forward", "fetch first", "stale info", "cannot lock ref", "failed to update ref")  # not a hook's no


@dataclass
class Listed:
    """One entry of a side ref's tree (``git ls-tree -r -l``)."""

    path: str
    mode: str
    kind: str
    sha: str
    size: int | None


def mirror(project: str, remote: str | None, name: str | None = None) -> tuple[str | None, list[str]]:
    """The project's copies of ``remote``'s side refs (all, or NAME's) made
    what the remote holds, one by one and only those named as conv names
    them (a ref nested under another, ``refs/conv/bob/x``, would block git's
    own ref names: left out, said); a ref the remote no longer has goes from
    the project too. (Why the remote could not be fetched from, when it could
    not; a line for each ref left out.)"""
    if remote is None:
        return None, []
    try:
        listing = _git("-C", project, "ls-remote", "--refs", remote, f"{SIDE}*",
                       what=f"cannot fetch {SIDE}* from {remote}").stdout.split()
    except SyncError as exc:
        return exc.message, []
    there = [ref for ref in listing[1::2] if ref.startswith(SIDE)]
    named = [ref for ref in there if NAME_RE.match(ref[len(SIDE):])]
    said = [f"{ref[:200]!r} on {remote}: not a name conv push --project writes; left out"
            for ref in there if ref not in named]
    wanted = [ref for ref in named if name is None or ref == f"{SIDE}{name}"]
    if wanted:
        try:
            _git("-C", project, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote,
                 *(f"+{ref}:{ref}" for ref in wanted), what=f"cannot fetch {SIDE}* from {remote}")
        except SyncError as exc:
            return exc.message, said
    gone = set(listed(project)) - set(named)  # what the remote no longer has goes from the project too:
    if name is not None:
        gone &= {f"{SIDE}{name}"}  # a push: its own ref, so that it starts from what the remote holds
    else:
        gone.discard(f"{SIDE}{side_name(project, quiet=True)}")  # an import: a teammate's; one's own may be unpushed
    for ref in gone:
        _git("-C", project, "update-ref", "-d", ref, what=f"cannot remove {ref} from {project}")
    return None, said


def listed(project: str) -> dict[str, str]:
    """refs/conv/NAME -> commit, as the project holds them (only names conv writes)."""
    found = _git("-C", project, "for-each-ref", "--format=%(refname) %(objectname)", SIDE,
                 what="cannot list the project's refs/conv/*").stdout.split()
    return {ref: sha for ref, sha in zip(found[::2], found[1::2]) if NAME_RE.match(ref[len(SIDE):])}


def tree(project: str, commit: str) -> list[Listed]:
    """Every file of ``commit``'s tree, with its mode, kind and size, the path as git has it."""
    out = _git("-C", project, "ls-tree", "-r", "-l", "-z", "--full-tree", commit,
               what=f"cannot read {commit[:12]} in {project}").stdout_bytes
    entries = []
    for line in out.split(b"\0"):
        head, tab, path = line.partition(b"\t")
        fields = head.split()
        if tab and len(fields) == 4:
            mode, kind, sha, size = (f.decode("ascii", "replace") for f in fields)
            entries.append(Listed(path.decode("utf-8", "surrogateescape"), mode, kind, sha,
                                  int(size) if size.isdigit() else None))
    return entries


def blobs(project: str, shas: list[str]) -> dict[str, bytes]:
    """The blobs ``shas`` of the project's repository (those it lacks left out)."""
    if not shas:
        return {}
    done = _git("-C", project, "cat-file", "--batch", what=f"cannot read the files of {project}",
                stdin="".join(f"{sha}\n" for sha in shas).encode())
    return answered(done.stdout_bytes, shas)


def place(store: str, made: str, project: str, name: str, after: str | None, message: str) -> str:
    """A commit in the project whose tree is the store's commit ``made``'s,
    with no parent, set as ``refs/conv/NAME`` only if the ref is still at
    ``after`` (the side ref as the remote last had it): that commit
    (``after`` itself when it holds the same tree)."""
    ref = f"{SIDE}{name}"
    _git("-C", project, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", store, made,
         what=f"cannot write {ref} in {project}")
    tree = _git("-C", project, "rev-parse", f"{made}^{{tree}}", what=f"cannot read {ref} in {project}").stdout.strip()
    if after is not None and _git("-C", project, "rev-parse", f"{after}^{{tree}}",
                                  what=f"cannot read {ref} in {project}").stdout.strip() == tree:
        return after  # the remote holds it all already: nothing to push
    commit = _git("-C", project, "commit-tree", tree, "-m", message, what=f"cannot write {ref} in {project}").stdout
    _git("-C", project, "update-ref", ref, commit.strip(), after or "0" * 40, what=f"{ref} moved meanwhile")
    return commit.strip()


def push(project: str, remote: str, name: str, seen: str | None) -> bool:
    """``refs/conv/NAME`` to ``remote`` over ``seen`` only (what the remote held when fetched; None: nothing):
    False when it moved on meanwhile (fetch and try again)."""
    ref = f"{SIDE}{name}"
    done = _git("-C", project, "push", "--quiet", "--no-verify", f"--force-with-lease={ref}:{seen or ''}", remote,
                f"{ref}:{ref}", what=f"cannot push {ref} to {remote}", check=False)  # no +: it would void the lease
    if done.returncode and "exists; cannot create" in done.stderr:  # a ref nested under this one's name
        raise SyncError(f"{remote} holds refs under {ref}/, so {ref} cannot be pushed",
                        f"Remove them: git -C {project} push {remote} --delete REF (git ls-remote {remote} "
                        f"'{ref}/*' names them)")
    if done.returncode and any(why in done.stderr for why in _MOVED):
        return False
    if done.returncode:  # a hook's or a host's no: in its own words
        said = [line[len("remote:"):].strip() for line in done.stderr.splitlines() if line.startswith("remote:")]
        why = "; ".join(line for line in said if line)[:300] or git_reason(done.stderr)
        raise SyncError(f"cannot push {ref} to {remote}: {why}",
                        f"Each push replaces {ref} with one commit (no history): the remote must let refs/conv/* "
                        "be replaced")
    return True


def project_key(project: str) -> str:
    """This machine's name for a project (its git folder's, hashed): what the store keeps of each apart."""
    import hashlib

    common = _git("-C", project, "rev-parse", "--path-format=absolute", "--git-common-dir",
                  what=f"cannot read {project}").stdout.strip()
    return hashlib.sha256(os.path.realpath(common).encode()).hexdigest()[:16]


def side_name(project: str, quiet: bool = False) -> str:
    """The name this person publishes under: their git e-mail in the project
    (``name_of``). Never a shared fallback: two people under one name would
    overwrite each other (``quiet``: "" when there is none)."""
    try:
        email = gitcli.run("-C", project, "config", "user.email").stdout.strip()
    except FileNotFoundError:
        raise UsageError("this needs git", "Install git") from None
    if not email and not quiet:
        raise UsageError("conv push --project publishes under your git e-mail, and this project has none",
                         "Set it: git config user.email you@example.com (or --global)")
    name = name_of(email) if email else ""
    if name and not NAME_RE.match(name):
        raise UsageError(f"your git e-mail is too long to name a ref ({len(name)} characters written so)",
                         "Publish under a shorter one: git config user.email you@example.com")
    return name


def name_of(email: str) -> str:
    """The side ref name of a git e-mail: its letters, digits and ``._@+-`` as
    they are, every other byte ``%XX`` (two people never share one name); a
    first character other than a letter or digit, a doubled or last dot and a
    trailing ``.lock`` written so too (NAME_RE takes every name this makes,
    up to 200 characters)."""
    name = "".join(c if c.isascii() and (c.isalnum() or c in "._@+-") else
                   "".join(f"%{b:02X}" for b in c.encode()) for c in email.strip())
    name = re.sub(r"\.(?=\.)|^[^A-Za-z0-9%]|\.\Z", lambda m: f"%{ord(m[0]):02X}", name)
    return name[:-5] + "%2Elock" if name.endswith(".lock") else name


def remote_of(project: str, asked: str | None) -> str | None:
    """``asked``, else the project's ``origin``, else its only remote; None when it has none."""
    try:
        remotes = gitcli.run("-C", project, "remote").stdout.split()
    except FileNotFoundError:
        raise UsageError("this needs git", "Install git") from None
    if asked is not None:
        if asked not in remotes:
            raise UsageError(f"{project} has no remote {asked!r}", f"Its remotes: {', '.join(remotes) or 'none'}")
        return asked
    return "origin" if "origin" in remotes else (remotes[0] if len(remotes) == 1 else None)


@dataclass
class _Ran:
    stdout_bytes: bytes
    stderr: str
    returncode: int = 0

    @property
    def stdout(self) -> str:
        return self.stdout_bytes.decode("utf-8", "replace")


def _git(*args: str, what: str, stdin: bytes = b"", check: bool = True) -> _Ran:
    """git (its input ``stdin``), never waiting for a password; a failure is
    one line saying ``what`` and git's reason (with ``check``)."""
    import subprocess

    try:
        done = subprocess.run(["git", *args], input=stdin, capture_output=True,
                              env={**os.environ, **IDENTITY, "GIT_TERMINAL_PROMPT": "0"})
    except FileNotFoundError:
        raise UsageError("this needs git", "Install git") from None
    stderr = done.stderr.decode("utf-8", "replace")
    if done.returncode and check:
        raise SyncError(f"{what}: {git_reason(stderr)}", "Is the repository there and the remote reachable?")
    return _Ran(done.stdout, stderr, done.returncode)
