"""Keeping a store in shape: the git CLI inside it (``conv git``), gc and fsck."""

from pathlib import Path

from ...errors import StoreError
from . import gitcli
from .lock import clear_stale, writer_lock

# git subcommands that only read: run without conv's writer lock, so a pager
# left open on conv git log never holds up Alt-F.
READ_ONLY = {
    "log", "show", "diff", "status", "grep", "ls-tree", "ls-files", "cat-file", "rev-parse", "rev-list",
    "blame", "shortlog", "describe", "count-objects", "fsck", "whatchanged", "reflog", "for-each-ref",
    "show-ref", "verify-pack", "name-rev", "archive", "bundle", "help", "version", "--version", "--help",
}


class Upkeep:
    """The git CLI, gc and fsck on the store at ``path``."""

    def __init__(self, path: Path):
        self.path = path

    def passthrough(self, args: list[str]) -> tuple[int, bool]:
        """``conv git ARGS``: git's exit code, and whether the command may have
        written (then conv's writer lock was held while it ran)."""
        exclusive = not args or args[0] not in READ_ONLY
        return self.run_git(args, exclusive), exclusive

    def run_git(self, args: list[str], exclusive: bool) -> int:
        """Run the real git CLI in the store. ``exclusive`` holds conv's writer
        lock meanwhile, for commands that may write: conv's own writers then
        wait, and never take git's live ref locks for a dead writer's."""
        import shutil
        import subprocess

        if shutil.which("git") is None:
            raise StoreError("git is not installed", "Install git (e.g. apt install git) to use conv git")
        command = ["git", "--git-dir", str(self.path), *args]
        if not exclusive:
            return subprocess.run(command).returncode
        with writer_lock(self.path):
            return subprocess.run(command).returncode

    def _clear_stale_ref_locks(self) -> None:
        """The ref locks gc takes, left by killed processes (call with the writer lock held)."""
        for lock in [self.path / "packed-refs.lock", *(self.path / "refs").rglob("*.lock")]:
            clear_stale(lock)

    def gc(self) -> str:
        """Pack and prune: git's gc (it delta-compresses: 10k turns, 253 MB loose,
        6.9 MB after git gc against 39 MB after dulwich's), else dulwich's."""
        import shutil

        if shutil.which("git"):
            # Deltas computed afresh (-f) with a window of 50, not 10: thousands of
            # small tree versions then pack to 57 MB instead of 138 MB (10,000
            # conversations, a commit a turn); gc then prunes and packs refs.
            steps = [["-c", "pack.window=50", "-c", "pack.depth=50", "repack", "-a", "-d", "-f", "-q"],
                     ["gc", "--quiet"]]
            with writer_lock(self.path):
                self._clear_stale_ref_locks()
            for step in steps:
                code = self.run_git(step, exclusive=True)
                if code:
                    raise StoreError(f"git {'repack' if 'repack' in step else 'gc'} failed (exit {code})")
            return "git"
        from dulwich import porcelain

        with writer_lock(self.path):
            self._clear_stale_ref_locks()
            porcelain.gc(str(self.path), prune=True)
        return "dulwich"

    def fsck(self) -> list[str]:
        """Problems found: git fsck --strict's output lines, else dulwich's."""
        try:
            done = gitcli.run("--git-dir", str(self.path), "fsck", "--strict", "--no-progress", "--no-dangling")
        except FileNotFoundError:  # no git CLI
            from dulwich import porcelain

            return [f"{sha.decode()}: {error}" for sha, error in porcelain.fsck(str(self.path))]
        problems = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
        return problems or ([f"git fsck exited {done.returncode}"] if done.returncode else [])


def drop_unreachable(repo: Path, old_head: str | None = None) -> None:
    """Delete, now, the objects of the repository at ``repo`` that no ref
    reaches: reflogs expired, packs rewritten without them (deltas reused,
    quicker than gc), loose ones deleted, no grace period. In conv's own store
    its locks keep every writer out meanwhile. A remote on a path has no such
    lock (another machine may be pushing to it this very moment, its new
    objects loose until its ref moves): there, give the ``old_head`` the
    rewrite replaced, and only loose objects that head reached go."""
    import shutil

    if shutil.which("git") is None:
        from dulwich import porcelain

        porcelain.gc(str(repo), prune=True, grace_period=0)
        return

    def git(*args: str) -> str:
        done = gitcli.run("-C", str(repo), *args)
        if done.returncode:
            why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
            raise StoreError(f"git {args[0]} in {repo} failed: {why}", "Nothing was lost; run the command again")
        return done.stdout

    loose = git("rev-list", "--objects", old_head, "--not", "--all").split("\n") if old_head else []
    git("reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
    git("repack", "-a", "-d", "-q")  # packs a push is still writing are not among those it replaces
    if not old_head:
        git("prune", "--expire=now")
        return
    objects = Path(git("rev-parse", "--git-path", "objects").strip())
    objects = objects if objects.is_absolute() else repo / objects
    for line in loose:
        sha = line.split(" ", 1)[0]
        if len(sha) == 40:
            (objects / sha[:2] / sha[2:]).unlink(missing_ok=True)
