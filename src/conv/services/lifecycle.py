"""Deleting (into the trash, restorable), restoring, and cleaning out old
conversations. A deleted conversation's folder moves to ``trash/`` in the
store in one commit: nothing is copied and nothing is lost."""

from datetime import datetime, timedelta, timezone

from ..errors import RefError, UsageError
from ..format.model import iso
from ..format.words import plural
from ..home.values import duration
from ..index import Filters
from ..records import dataclass
from . import erasure, refs
from .workspace import Workspace


@dataclass
class Moved:
    ids: list[str]
    commit: str | None

    def to_dict(self) -> dict:
        return {"conversations": self.ids, "commit": self.commit}


def delete(ws: Workspace, references: list[str]) -> Moved:
    conv_ids = sorted({ws.resolve(r) for r in references})
    return _move(ws, conv_ids, to_trash=True)


def restore(ws: Workspace, references: list[str]) -> Moved:
    return _move(ws, sorted({_deleted(ws, ref) for ref in references}), to_trash=False)


def _deleted(ws: Workspace, ref: str) -> str:
    """The conversation in the trash ``ref`` names; by its whole id also one
    the index lists as live because it is in both places (conv fsck says so)."""
    try:
        return refs.resolve(ws, ref, trashed=True)
    except RefError:
        if ref in set(ws.store.conversation_ids(trashed=True)):
            return ref
        raise


def clean(ws: Workspace, older: str, dry_run: bool = False) -> Moved:
    """Move every conversation not updated for ``older`` (e.g. 30d) to the trash."""
    try:
        age = duration(older)
    except ValueError as exc:
        raise UsageError(f"--older {older!r}: {exc}") from None
    cutoff = iso(datetime.now(timezone.utc) - timedelta(seconds=age))
    stale = [row.id for row in ws.index.refresh().recent() if row.updated < cutoff]
    if dry_run or not stale:
        return Moved(stale, None)
    return _move(ws, stale, to_trash=True, what=f"clean: {plural(len(stale), 'conversation')} older than {older}")


@dataclass
class Purged(Moved):
    remotes: list[str]  # remotes whose last-known head still holds purged text

    def to_dict(self) -> dict:
        return {**super().to_dict(), "remotes_holding_purged": self.remotes}


def purge(ws: Workspace, references: list[str]) -> Purged:
    """Erase conversations in the trash (all of it without references) from the
    store, its whole history and everything conv keeps beside it; without any,
    finish a purge that was interrupted. Irreversible: the CLI asks first."""
    if references:
        conv_ids = sorted({refs.resolve(ws, ref, trashed=True) for ref in references})
    else:
        conv_ids = [row.id for row in trashed(ws)]
    if not ws.store.exists():
        return Purged([], None, [])
    asked = erasure.questions(ws, conv_ids)
    if ws.store.purge(conv_ids):
        erasure.forget(ws, conv_ids, asked)
    return Purged(conv_ids, ws.store.head() if conv_ids else None, sorted(ws.store.remotes.holding_purged()))


def trashed(ws: Workspace) -> list:
    return ws.index.refresh().recent(filters=Filters(trashed=True))


def _move(ws: Workspace, conv_ids: list[str], to_trash: bool, what: str = "") -> Moved:
    verb = "delete" if to_trash else "restore"
    message = what or (f"{conv_ids[0]}: {verb}" if len(conv_ids) == 1 else f"{verb}: " + ", ".join(conv_ids))
    written = ws.store.move(conv_ids, to_trash, message)
    ws.index.refresh()
    return Moved(conv_ids, written.new)
