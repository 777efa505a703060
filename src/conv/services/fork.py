"""``conv fork``: a new conversation that starts as a copy of another's first
N turns, made of the very same git blobs, and remembers where it came from."""

from ..errors import UsageError
from ..format import ids
from ..format.model import Conversation, now_iso
from ..records import dataclass
from .workspace import Workspace


@dataclass
class Forked:
    id: str
    short: str
    parent: str
    at: int  # turns taken from the parent
    commit: str

    def to_dict(self) -> dict:
        return {"id": self.id, "short": self.short, "forked_from": self.parent, "turns": self.at, "commit": self.commit}


def fork(ws: Workspace, ref: str | None, at: int | None = None, title: str | None = None) -> Forked:
    parent = ws.conversation(ws.resolve(ref))
    count = len(parent.turns) if at is None else at
    if not 1 <= count <= len(parent.turns):
        raise UsageError(f"--at must be between 1 and {len(parent.turns)} (the turns of {parent.id})")
    taken = parent.turns[:count]
    child = child_of(parent, taken[-1].name, ws.store.head(), title or f"{parent.title or parent.id} (fork)")
    written = ws.store.fork(parent.id, child, [t.name for t in taken],
                            f"{child.id}: fork of {parent.id} at turn {count}")
    child.turns = taken
    ws.index.record(child, written.old, written.new)
    ws.make_current(child.id, count)
    return Forked(child.id, ws.index.queries.short_id(child.id), parent.id, count, written.new)


def child_of(parent: Conversation, turn: str, commit: str | None, title: str) -> Conversation:
    """A new conversation that remembers it was forked from ``parent`` at ``turn``, as of ``commit``."""
    return Conversation(
        id=ids.new_conversation_id(parent.agent), created=now_iso(), title=title, model=parent.model,
        provider=parent.provider, agent=parent.agent, tags=list(parent.tags),
        forked_from={"conversation": parent.id, "turn": turn, "commit": commit},
    )
