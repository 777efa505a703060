"""The one operation in conv that changes history: erasing conversations
from every commit (``conv clean --purge``)."""

from ..errors import StoreError
from .git import BRANCH, GitStore, HealingObjects
from .lock import clear_stale_ref_locks, signals_held, writer_lock
from .snapshot import Snapshot
from .upkeep import Upkeep


def rewrite_without(git: GitStore, paths: list[str]) -> int:
    """Rewrite every commit without ``paths`` (a purge): the only operation
    in conv that changes history. Trees and commits that never held those
    paths keep their ids; later commits get new ones; commits that touched
    nothing else are dropped, messages (titles, tags) and all. Then the
    objects no commit reaches any more are pruned. Returns the commits
    rewritten or dropped."""
    from dulwich.object_store import commit_tree_changes
    from dulwich.objects import Commit

    with writer_lock(git.path):
        clear_stale_ref_locks(git.path, BRANCH)
        old_head = git.head()
        if old_head is None:
            return 0
        objects = HealingObjects(git.objects)
        infos = {info.sha: info for info in git.walk(old_head)}
        new_trees: dict[bytes, bytes] = {}
        new_ids: dict[str, str] = {}
        tree_of: dict[str, bytes] = {}  # new commit id -> its tree
        rewritten = 0
        for sha in _parents_first(infos):
            commit = git.objects[sha.encode()]
            tree = new_trees.get(commit.tree)
            if tree is None:
                snap = Snapshot(git.objects, sha)
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
            if not git.refs.set_if_equals(BRANCH.encode(), old_head.encode(), new_ids[old_head].encode()):
                raise StoreError("the store changed during the purge", "Run it again")
    Upkeep(git.path).gc(prune_now=True)
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
