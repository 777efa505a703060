"""Side refs in a project's own repository (``refs/conv/NAME``), moved with
the git CLI: a commit of the store's written there and pushed to the
project's remote, everyone's fetched from it and on into the store. Never a
branch, never fetched by a plain clone or fetch, never pushed unless asked
(store/project_refs.py decides what goes in them)."""

import os
import re

from ...errors import SyncError, UsageError
from . import gitcli
from .remotes import git_reason

SIDE = "refs/conv/"


def publish(store: str, ref: str, project: str, name: str, remote: str | None) -> str:
    """The store's ``ref`` as ``refs/conv/NAME`` in ``project``, then pushed to ``remote`` (if one); that ref."""
    mine = f"{SIDE}{name}"
    _git("-C", project, "fetch", "--quiet", "--no-tags", store, f"+{ref}:{mine}",
         what=f"cannot write {mine} in {project}")
    if remote is not None:
        _git("-C", project, "push", "--quiet", "--no-verify", remote, f"+{mine}:{mine}",
             what=f"cannot push {mine} to {remote}")
    return mine


def fetch(store: str, into: str, project: str, remote: str | None) -> tuple[dict[str, str], str | None]:
    """``remote``'s side refs into the project, then the project's into the
    store under ``into``: (name -> commit, why ``remote`` could not be
    fetched from). That failure fails it (SyncError) only when the project
    holds no side ref at all."""
    problem = None
    if remote is not None:
        try:
            _git("-C", project, "fetch", "--quiet", "--no-tags", remote, f"+{SIDE}*:{SIDE}*",
                 what=f"cannot fetch {SIDE}* from {remote}")
        except SyncError as exc:
            problem = exc
    _git("--git-dir", store, "fetch", "--quiet", "--no-tags", "--prune", project, f"+{SIDE}*:{into}*",
         what=f"cannot read {SIDE}* of {project}")
    listed = _git("--git-dir", store, "for-each-ref", "--format=%(refname) %(objectname)", into,
                  what="cannot list what was fetched").stdout.split()
    found = {ref[len(into):]: sha for ref, sha in zip(listed[::2], listed[1::2])}
    if not found and problem is not None:
        raise problem
    return found, problem.message if problem is not None else None


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
