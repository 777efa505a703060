"""A project's conversations kept in the project's own repository, on a side
ref each person writes alone (``refs/conv/NAME``): never a branch anyone
checks out, not fetched by a plain clone or fetch, pushed to the project's
remote only by ``conv push --project``; ``conv import --from project``
fetches everyone's and brings in what this store lacks.

The side ref's commit holds only the project's conversation folders, placed
as they are in the store (no object is copied or rewritten), after the last
one published under that name; git carries them between the repositories."""

import os
import re
from collections.abc import Callable

from ..errors import SyncError, UsageError
from ..format.model import Conversation
from . import gitcli
from .git import GitStore
from .layout import META_FILE, ROOT, TRASH, conversation_ids, decode, folder, purged_ids
from .remotes import git_reason
from .snapshot import Existing, Snapshot

SIDE = "refs/conv/"  # in the project's repository
PUBLISHED = "refs/conv-published/"  # in the store: what was last published under each name
FETCHED = "refs/conv-project/"  # in the store: the side refs last fetched from a project


class ProjectRefs:
    def __init__(self, git: GitStore):
        self.git = git

    def publish(self, conv_ids: list[str], project: str, remote: str | None) -> tuple[str, str | None]:
        """Put ``conv_ids`` as they are now on ``refs/conv/NAME`` (NAME: this
        person's) in the ``project`` repository, then push that ref to the
        project's remote (``remote``, else its origin or only one; none: not
        pushed). (the ref, the remote pushed to)."""
        name, remote = side_name(project), remote_of(project, remote)
        snap = self.git.snapshot()
        folders = {folder(conv_id): found for conv_id in conv_ids if (found := snap.entry(folder(conv_id)))}
        mine = f"{SIDE}{name}"
        self.git.side_commit(f"{PUBLISHED}{name}", folders, f"conv: {len(folders)} conversations of {project}")
        _git("-C", project, "fetch", "--quiet", "--no-tags", str(self.git.path), f"+{PUBLISHED}{name}:{mine}",
             what=f"cannot write {mine} in {project}")
        if remote is not None:
            _git("-C", project, "push", "--quiet", "--no-verify", remote, f"+{mine}:{mine}",
                 what=f"cannot push {mine} to {remote}")
        return mine, remote

    def fetch(self, project: str, remote: str | None = None) -> tuple[dict[str, str], str | None]:
        """Everyone's side refs (the project's remote's first, into the
        project), then into the store: (name -> commit, why the remote could
        not be fetched from). A remote that cannot be reached fails it
        (SyncError) only when the project holds no side ref at all."""
        problem, remote = None, remote_of(project, remote)
        if remote is not None:
            try:
                _git("-C", project, "fetch", "--quiet", "--no-tags", remote, f"+{SIDE}*:{SIDE}*",
                     what=f"cannot fetch {SIDE}* from {remote}")
            except SyncError as exc:
                problem = exc
        _git("--git-dir", str(self.git.path), "fetch", "--quiet", "--no-tags", "--prune", project,
             f"+{SIDE}*:{FETCHED}*", what=f"cannot read {SIDE}* of {project}")
        listed = _git("--git-dir", str(self.git.path), "for-each-ref", "--format=%(refname) %(objectname)", FETCHED,
                      what="cannot list what was fetched").stdout.split()
        found = {ref[len(FETCHED):]: sha for ref, sha in zip(listed[::2], listed[1::2])}
        if not found and problem is not None:
            raise problem
        return found, problem.message if problem is not None else None

    def bring_in(self, commits: list[str], imported: Callable[[Conversation], Conversation], message: str) -> tuple[str | None, int, int]:
        """Into the branch, what the side refs' ``commits`` hold that it lacks:
        new conversations (their conversation.md as ``imported`` makes it
        over) and new turns of known ones; nothing purged or in the trash
        comes back. (new commit or None, conversations added, files added)."""
        counts = [0, 0]

        def build(snap: Snapshot):
            changes, counts[:] = {}, [0, 0]
            gone = purged_ids(snap)
            for commit in commits:
                theirs = Snapshot(self.git.object_files, commit)
                for conv_id in conversation_ids(theirs, ROOT):
                    if conv_id not in gone and snap.entry(folder(conv_id, TRASH)) is None:
                        _missing(snap, theirs, conv_id, imported, changes, counts)
            if not changes:
                raise _NothingNew
            return changes, message

        try:
            return self.git.update(build)[1], *counts
        except _NothingNew:
            return None, 0, 0


def _missing(snap: Snapshot, theirs: Snapshot, conv_id: str, imported, changes: dict, counts: list[int]) -> None:
    where = folder(conv_id)
    mine = snap.files(where)
    for name, sha in theirs.files(where).items():
        if name in mine or f"{where}/{name}" in changes:
            continue
        if name == META_FILE:
            conv = Conversation.from_text(decode(theirs.blob(sha), f"{where}/{name}"))
            changes[f"{where}/{name}"] = imported(conv).to_text().encode()
            counts[0] += 1
        else:
            changes[f"{where}/{name}"] = Existing(sha)
            counts[1] += 1


class _NothingNew(Exception):
    pass


def side_name(project: str) -> str:
    """The name this person publishes under: their git e-mail in the project, else their login."""
    try:
        email = gitcli.run("-C", project, "config", "user.email").stdout.strip()
    except FileNotFoundError:
        email = ""
    name = re.sub(r"[^A-Za-z0-9._@-]+", "-", email or os.environ.get("USER") or "me").strip(".-")
    return name.replace("@{", "-").replace("..", ".") or "me"


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


def _git(*args: str, what: str) -> gitcli.Ran:
    """git, never waiting for a password; a failure is one line saying ``what`` and git's reason."""
    try:
        done = gitcli.run(*args, env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    except FileNotFoundError:
        raise UsageError("this needs git", "Install git") from None
    if done.returncode:
        raise SyncError(f"{what}: {git_reason(done.stderr)}", "Is the repository there and the remote reachable?")
    return done
