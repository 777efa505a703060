"""What a commit that adds to conversations changes: the files of turns
appended to one (or of a new one), and of a fork. ``Store`` runs these under
its writer lock against the branch's newest commit."""

from collections.abc import Callable

from ..errors import RefError, StoreError
from ..format.model import Conversation, Turn
from .layout import META_FILE, attachments_of, files_in, folder, turn_files
from .repo.snapshot import Existing, Snapshot


def appended(snap: Snapshot, conv_id: str, make_turns: Callable[[str | None], list[Turn]],
             new_conversation: Conversation | None) -> tuple[dict, list[str]]:
    """(path -> content, the turn names after): ``make_turns`` gets the newest
    existing turn's name, its turns' parent; ``new_conversation`` must not exist yet."""
    where = folder(conv_id)
    files = sorted(n for n in snap.listdir(where) if n != META_FILE and n.endswith(".md"))
    exists = snap.read(f"{where}/{META_FILE}") is not None
    changes: dict[str, bytes | None] = {}
    if new_conversation is not None:
        if exists or files:
            raise StoreError(f"conversation {conv_id} already exists")
        changes[f"{where}/{META_FILE}"] = new_conversation.to_text().encode()
    elif not exists:
        raise RefError(f"conversation {conv_id} is not in the store", "See conv list")
    existing = [n[:-3] for n in files]
    for turn in make_turns(existing[-1] if existing else None):
        changes.update(turn_files(where, turn))
        existing.append(turn.name)
    return changes, sorted(existing)


def forked(snap: Snapshot, source: Snapshot, source_id: str, fork: Conversation, names: list[str],
           turns: list[Turn] | tuple) -> dict:
    """path -> content of a fork: ``names`` of ``source_id``'s turns in ``source``
    (the very same blobs), ``fork`` as its metadata, then ``turns`` of its own."""
    files = files_in(source, source_id)
    missing = [n for n in names if f"{n}.md" not in files]
    if missing:
        raise StoreError(f"conversation {source_id} has no turn {missing[0]}")
    where = folder(fork.id)
    if snap.read(f"{where}/{META_FILE}") is not None:
        raise StoreError(f"conversation {fork.id} already exists")
    changes: dict = {f"{where}/{META_FILE}": fork.to_text().encode()}
    changes.update({f"{where}/{name}.md": Existing(files[f"{name}.md"]) for name in names})
    sent = attachments_of(source.files(folder(source_id)), names)  # the files sent with them, the same blobs too
    changes.update({f"{where}/{name}": Existing(sha) for name, sha in sent.items()})
    for turn in turns:
        changes.update(turn_files(where, turn))
    return changes
