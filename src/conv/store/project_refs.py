"""A project's conversations kept in the project's own repository, on a side
ref each person writes alone (``refs/conv/NAME``): never a branch anyone
checks out, not fetched by a plain clone or fetch, pushed to the project's
remote only by ``conv push --project``; ``conv import --from project``
fetches everyone's and brings in what this store lacks.

The side ref's commit holds only the project's conversation folders, placed
as they are in the store (no object is copied or rewritten), after the last
one published under that name; git carries them between the repositories
(repo/side_refs.py)."""

from collections.abc import Callable

from ..format.model import Conversation
from .layout import META_FILE, ROOT, TRASH, conversation_ids, decode, folder, purged_ids
from .repo import side_refs
from .repo.git import GitStore
from .repo.snapshot import Existing, Snapshot

PUBLISHED = "refs/conv-published/"  # in the store: what was last published under each name
FETCHED = "refs/conv-project/"  # in the store: the side refs last fetched from a project


class ProjectRefs:
    def __init__(self, git: GitStore):
        self.git = git

    def publish(self, conv_ids: list[str], project: str, remote: str | None) -> tuple[str, str | None]:
        """Put ``conv_ids`` as they are now on ``refs/conv/NAME`` (NAME: this
        person's) in the ``project`` repository, then push that ref to the
        project's remote (``remote``, else its origin or only one; none: not
        pushed). (the ref, the remote pushed to)."""
        name, remote = side_refs.side_name(project), side_refs.remote_of(project, remote)
        snap = self.git.snapshot()
        folders = {folder(conv_id): found for conv_id in conv_ids if (found := snap.entry(folder(conv_id)))}
        self.git.side_commit(f"{PUBLISHED}{name}", folders, f"conv: {len(folders)} conversations of {project}")
        mine = side_refs.publish(str(self.git.path), f"{PUBLISHED}{name}", project, name, remote)
        return mine, remote

    def fetch(self, project: str, remote: str | None = None) -> tuple[dict[str, str], str | None]:
        """Everyone's side refs, from the project's remote (``remote``, else
        its origin or only one) through the project into the store: (name ->
        commit, why the remote could not be fetched from, if it could not)."""
        return side_refs.fetch(str(self.git.path), FETCHED, project, side_refs.remote_of(project, remote))

    def bring_in(self, commits: list[str], imported: Callable[[Conversation], Conversation],
                 message: str) -> tuple[str | None, int, int]:
        """Into the branch, what the side refs' ``commits`` hold that it lacks:
        new conversations (their conversation.md as ``imported`` makes it
        over) and new turns of known ones; nothing purged or in the trash
        comes back. (new commit or None, conversations added, files added)."""
        counts = [0, 0]

        def build(snap: Snapshot):
            changes, counts[:] = {}, [0, 0]
            gone = purged_ids(snap)
            for commit in commits:
                theirs = self.git.snapshot(commit)
                for conv_id in conversation_ids(theirs, ROOT):
                    if conv_id not in gone and snap.entry(folder(conv_id, TRASH)) is None:
                        _missing(snap, theirs, conv_id, imported, changes, counts)
            return (changes, message) if changes else None

        written = self.git.update(build)
        return (written[1] if written else None), *counts


def _missing(snap: Snapshot, theirs: Snapshot, conv_id: str, imported, changes: dict, counts: list[int]) -> None:
    where = folder(conv_id)
    mine = snap.files(where)
    for name, sha in theirs.files(where).items():
        if name in mine or f"{where}/{name}" in changes:
            continue
        if name == META_FILE:
            conv = Conversation.from_text(decode(theirs.blob(sha), f"{where}/{name}"))
            changes[f"{where}/{name}"] = imported(conv).to_text().encode()
            counts[0] += 1
        else:
            changes[f"{where}/{name}"] = Existing(sha)
            counts[1] += 1
