"""Keeping the store healthy: the git CLI inside it, gc, fsck, and the index."""

from ..index import Filters
from .workspace import Workspace

# git subcommands that only read: run without conv's writer lock, so a pager
# left open on conv git log never holds up Alt-F.
READ_ONLY = {
    "log", "show", "diff", "status", "grep", "ls-tree", "ls-files", "cat-file", "rev-parse", "rev-list",
    "blame", "shortlog", "describe", "count-objects", "fsck", "whatchanged", "reflog", "for-each-ref",
    "show-ref", "verify-pack", "name-rev", "archive", "bundle", "help", "version", "--version", "--help",
}


def git(ws: Workspace, args: list[str]) -> int:
    """``conv git ARGS``: git in the store (as ``pass git`` does); its exit code."""
    exclusive = not args or args[0] not in READ_ONLY
    code = ws.store.git.run_git(args, exclusive)
    if exclusive:
        ws.index.refresh()  # it may have committed, reset or fetched
    return code


def gc(ws: Workspace) -> str:
    return ws.store.git.gc()


def fsck(ws: Workspace) -> list[str]:
    return ws.store.git.fsck()


def reindex(ws: Workspace) -> int:
    """Throw the index away and build it again from git; the conversations counted."""
    ws.index.rebuild()
    return len(ws.index.recent()) + len(ws.index.recent(filters=Filters(trashed=True)))
