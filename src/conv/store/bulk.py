"""Moves of whole conversation folders to and from the trash, many in one
commit (nothing is copied). A conversation found in both places (an older
conv's import wrote a deleted one's new turns beside it) is made one again by
the move: the two folders' files together, where it goes."""

from ..errors import RefError
from .layout import ROOT, TRASH, shard_path
from .repo.git import GitStore
from .repo.snapshot import Existing, Snapshot


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
            there = snap.files(f"{dst}/{shard_path(conv_id)}")
            if not there:
                changes[f"{dst}/{shard_path(conv_id)}"] = entry
                continue
            for name, sha in snap.files(f"{src}/{shard_path(conv_id)}").items():
                if name not in there:  # the same conversation in two places: one, with every turn of both
                    changes[f"{dst}/{shard_path(conv_id)}/{name}"] = Existing(sha)
        return changes, message

    return git.update(build)
