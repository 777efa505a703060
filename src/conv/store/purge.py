"""Erasing purged conversations everywhere conv reaches in the store.

A purge commits the tombstone (``purged.txt``: the ids, never their text)
and takes the folders out of the trash in one commit, then every ref under
refs/ (the branch, remote-tracking refs, backups, anything else) goes
through the one filter (filter.py), and the objects only the old history
reached are deleted at once. A sync that learns a purge from a remote runs
the same ``erase`` on this store (pull.py). Interrupted anywhere, the
tombstone is already committed: the next purge or sync finishes the job.
"""

from ..errors import RefError, StoreError
from .filter import Filter
from .layout import PURGED, TRASH, folder, purged_ids, purged_text
from .repo import remote_heads
from .repo.git import GitStore
from .repo.lock import clear_stale_ref_locks, signals_held, transfer_lock, writer_lock
from .repo.refs import BRANCH
from .repo.upkeep import drop_unreachable

_REMOTES, _MAIN = "refs/remotes/", "/main"  # a remote-tracking ref: refs/remotes/NAME/main


def purge(git: GitStore, conv_ids: list[str]) -> bool:
    """Erase conversations in the trash from the store and its whole history.
    With no ids, finishes an interrupted purge. True when history changed."""
    if conv_ids:
        def build(snap):
            for conv_id in conv_ids:
                if snap.entry(folder(conv_id, TRASH)) is None:
                    raise RefError(f"conversation {conv_id} is not in the trash", "Delete it first: conv delete REF")
            changes: dict = {folder(conv_id, TRASH): None for conv_id in conv_ids}
            changes[PURGED] = purged_text(purged_ids(snap) | set(conv_ids))
            return changes, "purge: " + ", ".join(sorted(conv_ids))

        git.update(build)
    return settle(git)


def settle(git: GitStore, dirty: bool = False) -> bool:
    """Erase what the branch's tombstone names from every ref, then delete the
    objects nothing reaches any more (also when ``dirty``: a caller moved refs
    already). Looks again after pruning, in case a process outside conv's lock
    (the backup hook's git push) moved a ref meanwhile. True when anything moved."""
    moved = dirty
    for _ in range(3):
        with writer_lock(git.path):
            if erase(git, Filter(git.path, git.objects, purged_ids(git.snapshot()))):
                moved = dirty = True
        if not dirty:
            break
        with writer_lock(git.path), transfer_lock(git.path, exclusive=True):
            drop_unreachable(git.path)
            git.forget_objects()
        dirty = False
    return moved


def newly_purged(git: GitStore, commit: str) -> list[str]:
    """Conversations the branch holds (live or deleted) that ``commit``'s tombstone names."""
    if commit.encode() not in git.objects:
        return []
    here = git.snapshot()
    return sorted(c for c in purged_ids(git.snapshot(commit)) - purged_ids(here)
                  if here.entry(folder(c)) or here.entry(folder(c, TRASH)))


def erase(git: GitStore, cut: Filter) -> bool:
    """Every ref under refs/ through ``cut`` (call with the writer lock held).
    A remote-tracking ref that changes keeps its real head in remote_heads.py; a
    ref left pointing at an object pruned under it goes. True when a ref moved."""
    if not cut.purged:
        return False
    refs, moved = git.refs, False
    clear_stale_ref_locks(git.path, BRANCH)
    for name in sorted(r for r in refs.allkeys() if r.startswith(b"refs/")):
        value = refs.read_ref(name)
        if value is None or value.startswith(b"ref: "):
            continue  # a symbolic ref follows its target
        if value not in git.objects:
            if name == BRANCH.encode():
                raise StoreError(f"the branch points at {value.decode()}, which is missing", "Run conv fsck")
            new = None  # dangling: its objects were pruned while it moved
        else:
            obj = git.objects[value]
            target = obj.object[1] if obj.type_name == b"tag" else value  # an annotated tag becomes a plain one
            if git.objects[target].type_name != b"commit":
                continue
            try:
                new = cut(target.decode()).encode()
            except KeyError as missing:
                raise StoreError(f"{name.decode()}'s history lacks object {missing}", "Run conv fsck") from None
            if new == target:
                continue
        ref = name.decode()
        if ref.startswith(_REMOTES) and ref.endswith(_MAIN) and new is not None:
            remote = ref[len(_REMOTES):-len(_MAIN)]
            remote_heads.record(git.path, remote, remote_heads.read(git.path).get(remote) or value.decode())
        with signals_held():
            done = refs.set_if_equals(name, value, new) if new else refs.remove_if_equals(name, value)
        if not done and name == BRANCH.encode():
            raise StoreError("the store changed during the purge", "Run it again")
        moved = True  # or moved by someone else meanwhile: the next round looks again
    cut.save()
    return moved
