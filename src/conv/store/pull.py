"""Bringing a fetched commit into the branch (a pull): nothing when it is
already contained, a fast-forward when the branch is behind, else a merge
commit that keeps every turn (merge.py). The head before anything moves is
kept under refs/conv/backup/.

Purges travel: the purged set is this store's tombstone and the fetched
one's together, and both sides are filtered by it before they meet, so a
machine that learns a purge erases it here too (purge.erase), and a remote
that still holds purged text never brings it back. The remote-tracking ref
then points at the filtered commit; the remote's real head is noted in
remote_heads.py. All of it happens under the writer lock, so no other writer can
bring in what the filtering left out."""

from ..errors import SyncError
from ..records import dataclass, field
from .filter import Filter
from .layout import PURGED, ROOT, TRASH, conversation_ids, folder, purged_ids, purged_text
from .layout import shard_path as _shard
from .merge import fork_name, merged, side, write
from .purge import erase, settle
from .repo import remote_heads
from .repo.git import GitStore
from .repo.lock import writer_lock
from .repo.remotes import TRACKING
from .repo.snapshot import Snapshot


@dataclass
class MergeResult:
    kind: str  # "up to date", "fast-forward" or "merged"
    moved: dict[str, str] = field(default_factory=dict)  # conversation -> fork now holding this machine's line
    forks: int = 0
    backup: str | None = None
    theirs: str = ""  # the fetched commit as filtered: what was merged
    holds_purged: bool = False  # the remote's own head still holds purged text
    erased: list[str] = field(default_factory=list)  # purged elsewhere, and erased here now


def merge_from(git: GitStore, fetched: str, remote: str, changed) -> MergeResult:
    """Bring ``fetched``, the head of ``remote``, into the branch.
    ``changed(old, new)`` names the conversations that differ between two commits."""
    with writer_lock(git.path):
        result, dirty = _filtered(git, fetched, remote)
        _merge(git, result, remote, changed)
    if dirty:
        settle(git, dirty=True)
    return result


def _filtered(git: GitStore, fetched: str, remote: str) -> tuple[MergeResult, bool]:
    """Both sides without what either side's tombstone names; whether objects are left to prune."""
    local = git.head()
    mine = purged_ids(git.snapshot(local))
    source = fetched
    if fetched.encode() not in git.objects:  # not fetched again: its filtered image is here
        source = Filter(git.path, git.objects, mine).cached(fetched)
        if source is None:
            raise SyncError(f"the commit fetched from {remote} is gone (pruned by another conv meanwhile)",
                            "Run the command again")
    purged = mine | purged_ids(git.snapshot(source))
    here = git.snapshot(local)
    erased = sorted(c for c in purged - mine if here.entry(folder(c)) or here.entry(folder(c, TRASH)))
    cut = Filter(git.path, git.objects, purged)
    dirty = erase(git, cut)
    theirs = cut(source)
    cut.save()
    tracking = TRACKING.format(name=remote).encode()
    if git.refs.read_ref(tracking) != theirs.encode():
        git.refs[tracking] = theirs.encode()
    remote_heads.record(git.path, remote, fetched if theirs != fetched else None)
    dirty = dirty or (theirs != fetched and fetched.encode() in git.objects)
    return MergeResult("up to date", theirs=theirs, holds_purged=theirs != fetched, erased=erased), dirty


def _merge(git: GitStore, result: MergeResult, label: str, changed) -> None:
    """A fast-forward also when everything here is in the remote's tree
    already: two machines that merged the same heads adopt one merge, not
    merge merges forever."""
    local, remote = git.head(), result.theirs
    if local == remote or (local and git.merge_base(local, remote) == remote):
        return
    merged = None if local is None or git.merge_base(local, remote) == local else _merged(git, local, remote, changed)
    if merged is None or merged.takes_remote:
        if local:
            result.backup = git.keep_backup(local)
            # another machine's merge may have moved this machine's line of a conversation into a fork
            result.moved = moved_away(git.snapshot(local), git.snapshot(remote), changed(local, remote))
        git.fast_forward(local, remote)
        result.kind = "fast-forward"
        return
    result.kind, result.moved, result.forks = "merged", merged.moved, merged.forks
    result.backup = git.keep_backup(local)
    note = f", {merged.forks} diverged line(s) kept as forks" if merged.forks else ""
    git.update(lambda snap: (merged.changes, f"sync: merge {label}{note}", [remote]))


@dataclass
class Merged:
    changes: dict = field(default_factory=dict)  # path -> Existing | bytes | None, against the local tree
    moved: dict[str, str] = field(default_factory=dict)  # conversation -> fork holding the local line
    forks: int = 0
    takes_remote: bool = True  # the result is the remote's tree: adopt its commit, make no merge


def merge(base: Snapshot | None, local: Snapshot, remote: Snapshot, changed: set[str],
          edited) -> Merged:
    """The changes that turn the local tree into the merge of both, one
    conversation at a time by merge.merged. ``changed`` holds the
    conversations either side touched since ``base``; ``edited(on_local,
    path)`` says when a side last changed a file, as a sortable (time, commit
    id): where both sides changed something, the later edit wins. The
    tombstones (purged.txt) are united, and no folder of an id either names is kept."""
    out = Merged()
    mine, theirs = purged_ids(local), purged_ids(remote)
    purged = mine | theirs
    if purged != mine:
        out.changes[PURGED] = purged_text(purged)
    out.takes_remote = purged == theirs
    for conv_id in sorted(purged):
        write(out.changes, conv_id, side(local, conv_id), None)
    for conv_id in sorted(changed - purged):
        b, l, r = (side(s, conv_id) if s is not None else None for s in (base, local, remote))
        later_is_local = None if l is None or r is None else (
            lambda name, l=l, r=r: edited(True, f"{l.root}/{_shard(conv_id)}/{name}")
            > edited(False, f"{r.root}/{_shard(conv_id)}/{name}"))
        result, fork = merged(conv_id, b, l, r, later_is_local, local.blob, base.commit if base else None)
        out.takes_remote = out.takes_remote and fork is None and result is not None and r is not None \
            and result.root == r.root and result.files == r.files
        write(out.changes, conv_id, l, result)
        if fork is not None:
            write(out.changes, fork.conv_id, None, fork.side)
            out.forks += 1
            if fork.holds_local:
                out.moved[conv_id] = fork.conv_id
    return out


def moved_away(local: Snapshot, remote: Snapshot, changed: set[str]) -> dict[str, str]:
    """After a fast-forward to ``remote``: the conversations whose line on this
    machine (``local``) another machine's merge moved into a fork, and those
    forks (the local line's turns are gone from the conversation, and the fork
    the merge made of them, named after the first of them, holds the last)."""
    out = {}
    for conv_id in changed:
        mine, now = side(local, conv_id), side(remote, conv_id)
        if mine is None or now is None:
            continue
        gone = sorted(set(mine.others) - set(now.others))
        if not mine.others or not gone:
            continue
        fork = side(remote, fork_name(conv_id, gone[0]))
        if fork is not None and max(mine.others) in fork.files:
            out[conv_id] = fork_name(conv_id, gone[0])
    return out


def _merged(git: GitStore, local: str, remote: str, changed):
    base = git.merge_base(local, remote)
    if base:
        touched = changed(base, local) | changed(base, remote)
    else:  # unrelated histories: every conversation
        touched = {conv_id for head in (local, remote) for root in (ROOT, TRASH)
                   for conv_id in conversation_ids(git.snapshot(head), root)}
    heads = {True: local, False: remote}

    def edited(on_local: bool, path: str) -> tuple:
        return git.last_change(heads[on_local], base, path)

    return merge(git.snapshot(base) if base else None, git.snapshot(local), git.snapshot(remote), touched, edited)
