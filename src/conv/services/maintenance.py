"""Keeping the store healthy: the git CLI inside it, gc, fsck, and the index."""

from pathlib import Path

from ..errors import UsageError
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


SHIPPED = Path(__file__).resolve().parent.parent / "hooks"  # conv/hooks: the repository's hooks/ (a symlink)


def shipped_hooks() -> dict[str, str]:
    """The hooks conv ships: name -> first line of their description."""
    out = {}
    for path in sorted(SHIPPED.iterdir()):
        if path.is_file() and not path.name.startswith("."):  # an installed wheel may drop the x bit
            lines = [l.strip("#\" ") for l in path.read_text().splitlines()[1:4] if l.strip("#\" ")]
            out[path.name] = (lines[0] if lines else "").removeprefix("conv store hook: ")
    return out


def install_hooks(ws: Workspace, names: list[str]) -> list[str]:
    import shutil

    if shutil.which("git") is None:
        raise UsageError("the hooks conv ships run git", "Install git first (e.g. apt install git)")
    shipped = shipped_hooks()
    unknown = [n for n in names if n not in shipped]
    if unknown:
        raise UsageError(f"conv ships no hook {unknown[0]!r}", "Shipped: " + ", ".join(shipped))
    for name in names or shipped:
        ws.store.git.install_hook(name, (SHIPPED / name).read_text())
    return names or list(shipped)


def installed_hooks(ws: Workspace) -> dict[str, str]:
    """name -> "conv's", "changed" or "yours" (and "off" when not executable)."""
    shipped = {p.name: p.read_text() for p in SHIPPED.iterdir() if p.is_file()}
    out = {}
    for name, runs in ws.store.git.hooks().items():
        text = (ws.store.path / "hooks" / name).read_text(errors="replace")
        kind = "conv's" if shipped.get(name) == text else ("changed" if name in shipped else "yours")
        out[name] = kind if runs else f"{kind}, off (not executable)"
    return out
