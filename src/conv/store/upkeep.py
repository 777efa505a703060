"""Keeping a store in shape: the git CLI inside it, gc, fsck, and the one
operation that rewrites history (a purge). Mixed into GitStore."""

from ..errors import StoreError
from .lock import clear_stale_ref_locks, signals_held, writer_lock


class Upkeep:
    def run_git(self, args: list[str], exclusive: bool) -> int:
        """Run the real git CLI in the store (``conv git``, ``conv gc``).
        ``exclusive`` holds conv's writer lock meanwhile, for commands that may
        write: conv's own writers then wait, and never take git's live ref
        locks for a dead writer's."""
        import shutil
        import subprocess

        if shutil.which("git") is None:
            raise StoreError("git is not installed", "Install git (e.g. apt install git) to use conv git")
        command = ["git", "--git-dir", str(self.path), *args]
        if not exclusive:
            return subprocess.run(command).returncode
        with writer_lock(self.path):
            return subprocess.run(command).returncode

    def gc(self, prune_now: bool = False) -> str:
        """Pack and prune: git's gc (it delta-compresses: 10k turns, 253 MB loose,
        6.9 MB after git gc against 39 MB after dulwich's), else dulwich's.
        ``prune_now`` drops unreachable objects at once (after a purge)."""
        import shutil

        if shutil.which("git"):
            # Deltas computed afresh (-f) with a window of 50, not 10: thousands of
            # small tree versions then pack to 57 MB instead of 138 MB (10,000
            # conversations, a commit a turn); gc then prunes and packs refs.
            steps = [["-c", "pack.window=50", "-c", "pack.depth=50", "repack", "-a", "-d", "-f", "-q"],
                     ["gc", "--quiet"] + ["--prune=now"] * prune_now]
            for step in steps:
                code = self.run_git(step, exclusive=True)
                if code:
                    raise StoreError(f"git {'repack' if 'repack' in step else 'gc'} failed (exit {code})")
            return "git"
        from dulwich import porcelain

        with writer_lock(self.path):
            porcelain.gc(str(self.path), prune=True, grace_period=0 if prune_now else None)
        return "dulwich"

    def fsck(self) -> list[str]:
        """Problems found: git fsck --strict's output lines, else dulwich's."""
        import shutil
        import subprocess

        if shutil.which("git"):
            done = subprocess.run(["git", "--git-dir", str(self.path), "fsck", "--strict", "--no-progress", "--no-dangling"],
                                  capture_output=True, text=True)
            problems = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
            return problems or ([f"git fsck exited {done.returncode}"] if done.returncode else [])
        from dulwich import porcelain

        return [f"{sha.decode()}: {error}" for sha, error in porcelain.fsck(str(self.path))]

    def rewrite_without(self, paths: list[str]) -> int:
        """Rewrite every commit without ``paths`` (a purge): the only operation
        in conv that changes history. Trees and commits that never held those
        paths keep their ids; later commits get new ones; commits that touched
        nothing else are dropped, messages (titles, tags) and all. Then the
        objects no commit reaches any more are pruned. Returns the commits
        rewritten or dropped."""
        from dulwich.object_store import commit_tree_changes
        from dulwich.objects import Commit

        from .git import BRANCH, Snapshot, _HealingObjects

        with writer_lock(self.path):
            clear_stale_ref_locks(self.path, BRANCH)
            old_head = self.head()
            if old_head is None:
                return 0
            objects = _HealingObjects(self.objects)
            infos = {info.sha: info for info in self.walk(old_head)}
            new_trees: dict[bytes, bytes] = {}
            new_ids: dict[str, str] = {}
            tree_of: dict[str, bytes] = {}  # new commit id -> its tree
            rewritten = 0
            for sha in _parents_first(infos):
                commit = self.objects[sha.encode()]
                tree = new_trees.get(commit.tree)
                if tree is None:
                    snap = Snapshot(self.objects, sha)
                    drop = [(p.encode(), None, None) for p in paths if snap.entry(p) is not None]
                    tree = commit_tree_changes(objects, commit.tree, drop) if drop else commit.tree
                    new_trees[commit.tree] = tree
                parents = [new_ids[p] for p in infos[sha].parents]
                if tree == commit.tree and parents == infos[sha].parents:
                    new_ids[sha], tree_of[sha] = sha, tree
                    continue
                if len(parents) == 1 and tree_of[parents[0]] == tree:
                    new_ids[sha] = parents[0]  # it only touched what is purged: it goes, message and all
                    rewritten += 1
                    continue
                copy = Commit()
                copy.tree, copy.parents = tree, [p.encode() for p in parents]
                copy.author, copy.committer = commit.author, commit.committer
                copy.author_time, copy.commit_time = commit.author_time, commit.commit_time
                copy.author_timezone, copy.commit_timezone = commit.author_timezone, commit.commit_timezone
                copy.message = commit.message
                objects.add_object(copy)
                new_ids[sha] = copy.id.decode()
                tree_of[new_ids[sha]] = tree
                rewritten += 1
            with signals_held():
                if not self.refs.set_if_equals(BRANCH.encode(), old_head.encode(), new_ids[old_head].encode()):
                    raise StoreError("the store changed during the purge", "Run it again")
        self.gc(prune_now=True)
        return rewritten


def _parents_first(infos: dict) -> list[str]:
    """Commit ids ordered so that every commit comes after its parents."""
    order, done = [], set()
    for start in infos:
        stack = [(start, False)]
        while stack:
            sha, expanded = stack.pop()
            if sha in done:
                continue
            if expanded:
                done.add(sha)
                order.append(sha)
                continue
            stack.append((sha, True))
            stack.extend((p, False) for p in infos[sha].parents if p not in done)
    return order
