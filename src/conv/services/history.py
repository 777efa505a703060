"""A conversation through time: its commits (``conv log``), and differences
between two conversations or two versions of one (``conv diff``)."""

from ..errors import RefError, UsageError
from ..index import Event
from ..records import dataclass
from . import refs
from .diffing import ConversationDiff, compare
from .workspace import Workspace


@dataclass
class Log:
    conv_id: str
    short: str
    events: list[Event]

    def to_dict(self) -> dict:
        return {"conversation": self.conv_id, "commits": [
            {"commit": e.sha, "time": e.time, "message": e.message} for e in self.events]}


def log(ws: Workspace, ref: str | None) -> Log:
    try:
        conv_id = ws.resolve(ref)
    except RefError as live:
        if ref is None:
            raise
        try:  # a deleted conversation's history is still worth reading
            conv_id = refs.resolve(ws, ref, trashed=True)
        except RefError:
            raise live from None
    return Log(conv_id, ws.index.queries.short_id(conv_id), ws.index.refresh().history(conv_id))


def diff_conversations(ws: Workspace, ref_a: str, ref_b: str) -> ConversationDiff:
    a, b = ws.resolve(ref_a), ws.resolve(ref_b)
    label = lambda conv_id: ws.index.queries.short_id(conv_id)  # noqa: E731
    return compare(ws.conversation(a).turns, ws.conversation(b).turns, label(a), label(b))


def diff_versions(ws: Workspace, ref: str | None, rev: str | None) -> ConversationDiff:
    """``X..Y``, ``X..`` or ``X`` (to now); without a range, the last change."""
    conv_id = ws.resolve(ref)
    events = ws.index.refresh().history(conv_id)
    if rev:
        old, _, new = rev.partition("..")
        old_sha = _commit(ws, old, events)
        new_sha = _commit(ws, new, events) if new else events[0].sha
    else:
        if len(events) < 2:
            raise UsageError(f"{conv_id} has only one version", "See conv log")
        new_sha, old_sha = events[0].sha, events[1].sha
    short = ws.index.queries.short_id(conv_id)
    return compare(
        ws.conversation(conv_id, old_sha).turns if _has(ws, conv_id, old_sha) else [],
        ws.conversation(conv_id, new_sha).turns if _has(ws, conv_id, new_sha) else [],
        f"{short}@{old_sha[:8]}", f"{short}@{new_sha[:8]}",
    )


def _has(ws: Workspace, conv_id: str, commit: str) -> bool:
    return ws.store.has(conv_id, commit)


def _commit(ws: Workspace, prefix: str, events: list[Event]) -> str:
    prefix = prefix.strip().lower()
    if len(prefix) < 4 or any(c not in "0123456789abcdef" for c in prefix):
        raise UsageError(f"{prefix!r} is not a commit id", "Use the ids conv log shows (4 or more hex digits)")
    mine = [e.sha for e in events if e.sha.startswith(prefix)]
    found = sorted(set(mine or ws.index.queries.commits_matching(prefix)))
    if len(found) != 1:
        raise RefError(f"commit {prefix!r} " + ("is ambiguous" if found else "is not in the store's history"),
                       "See conv log")
    return found[0]
