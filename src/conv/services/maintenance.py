"""Keeping the store healthy: the git CLI inside it, gc, fsck, hooks, and the index."""

from .workspace import Workspace


def git(ws: Workspace, args: list[str]) -> int:
    """``conv git ARGS``: git in the store (as ``pass git`` does); its exit code."""
    code, wrote = ws.store.upkeep.passthrough(args)
    if wrote:
        ws.index.refresh()  # it may have committed, reset or fetched
    return code


def gc(ws: Workspace) -> str:
    return ws.store.upkeep.gc()


def fsck(ws: Workspace) -> list[str]:
    """What is wrong with the store: git fsck --strict's findings, and a
    conversation found in two places (an older conv's import could leave a
    deleted one's new turns beside it)."""
    problems = ws.store.upkeep.fsck()
    both = set(ws.store.conversation_ids()) & set(ws.store.conversation_ids(trashed=True))
    return problems + [f"conversation {conv_id} is in conversations/ and in the trash at once: "
                       f"conv restore {conv_id} makes it one (with every turn of both)" for conv_id in sorted(both)]


def reindex(ws: Workspace) -> int:
    """Throw the index away and build it again from git; the conversations counted."""
    ws.index.rebuild()
    return ws.index.queries.count()


def shipped_hooks(ws: Workspace) -> dict[str, str]:
    """The hooks conv ships: name -> what each does."""
    return ws.store.hooks.shipped()


def install_hooks(ws: Workspace, names: list[str]) -> list[str]:
    return ws.store.hooks.install(names)


def installed_hooks(ws: Workspace) -> dict[str, str]:
    """name -> "conv's", "changed" or "yours" (and "off" when not executable)."""
    return ws.store.hooks.installed()
