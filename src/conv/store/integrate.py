"""Bringing a fetched commit into the branch (a pull): nothing when it is
already contained, a fast-forward when the branch is behind, else a merge
commit that keeps every turn (merge.py). The head before anything moves is
kept under refs/conv/backup/."""

from dataclasses import dataclass, field

from .git import GitStore
from .layout import ROOT, TRASH, conversation_ids
from .merge import merge
from .snapshot import Snapshot


@dataclass
class MergeResult:
    kind: str  # "up to date", "fast-forward" or "merged"
    moved: dict[str, str] = field(default_factory=dict)  # conversation -> fork now holding this machine's line
    forks: int = 0
    backup: str | None = None


def merge_from(git: GitStore, remote: str, label: str, changed) -> MergeResult:
    """Bring ``remote`` into the branch. A fast-forward also when everything
    here is in the remote's tree already: two machines that merged the same
    heads adopt one merge, not merge merges forever. ``changed(old, new)``
    names the conversations that differ between two commits."""
    result = MergeResult("up to date")
    local = git.head()
    if local == remote or (local and git.merge_base(local, remote) == remote):
        return result
    merged = None if local is None or git.merge_base(local, remote) == local else _merged(git, local, remote, changed)
    if merged is None or merged.takes_remote:
        if local:
            result.backup = git.keep_backup(local)
        git.fast_forward(local, remote)
        result.kind = "fast-forward"
        return result

    def build(snap: Snapshot):
        nonlocal merged
        if snap.commit != local:  # another writer got in between: merge against what is there now
            merged = _merged(git, snap.commit, remote, changed)
        result.kind, result.moved, result.forks = "merged", merged.moved, merged.forks
        result.backup = git.keep_backup(snap.commit)
        note = f", {merged.forks} diverged line(s) kept as forks" if merged.forks else ""
        return merged.changes, f"sync: merge {label}{note}", [remote]

    git.update(build)
    return result


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
