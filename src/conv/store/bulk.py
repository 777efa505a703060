"""Writes of many conversations in one commit: an import, which adds only
what is not in the store yet (and never what was purged), and moves of whole
folders to and from the trash (nothing is copied)."""

from ..errors import RefError
from ..format.model import Conversation, Turn
from ..home import progress
from .layout import META_FILE, ROOT, TRASH, folder, purged_ids, shard_path, turn_files
from .repo.git import GitStore
from .repo.snapshot import Snapshot


def add_missing(git: GitStore, items: list[tuple[Conversation, list[Turn]]], message: str):
    """((old, new) commits or None when nothing was new, the conversations added whole, turns added)."""
    added, turns_added = [], [0]

    def build(snap: Snapshot):
        changes: dict = {}
        added[:], turns_added[0] = [], 0
        purged = purged_ids(snap)
        with progress.steps("writing conversations", len(items)) as advance:
            for conv, turns in items:
                advance()
                if conv.id not in purged:
                    _add(snap, conv, turns, changes, added, turns_added)
        return (changes, message) if changes else None

    return git.update(build), added, turns_added[0]


def _add(snap: Snapshot, conv: Conversation, turns: list[Turn], changes: dict, added: list[str],
         turns_added: list[int]) -> None:
    """Into ``changes``: the files of ``conv`` the store does not hold yet."""
    where = folder(conv.id)
    present = set(snap.listdir(where))
    if META_FILE not in present:
        changes[f"{where}/{META_FILE}"] = conv.to_text().encode()
        added.append(conv.id)
    for turn in turns:
        if f"{turn.name}.md" not in present:
            changes.update(turn_files(where, turn))
            turns_added[0] += 1


def move(git: GitStore, conv_ids: list[str], to_trash: bool, message: str) -> tuple[str | None, str]:
    """The (old, new) commits of moving ``conv_ids`` into the trash or back."""
    src, dst = (ROOT, TRASH) if to_trash else (TRASH, ROOT)

    def build(snap: Snapshot):
        changes: dict = {}
        for conv_id in conv_ids:
            entry = snap.entry(f"{src}/{shard_path(conv_id)}")
            if entry is None:
                where = "the trash" if src == TRASH else "the store"
                raise RefError(f"conversation {conv_id} is not in {where}")
            changes[f"{src}/{shard_path(conv_id)}"] = None
            changes[f"{dst}/{shard_path(conv_id)}"] = entry
        return changes, message

    return git.update(build)
