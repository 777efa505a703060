"""Reading the store for people: listings and single conversations."""

from dataclasses import dataclass

from .. import ids, refs
from ..errors import RefError
from ..format import Conversation
from ..index import Row
from ..store import META_FILE
from .current import current
from .workspace import Workspace


@dataclass
class Listed:
    row: Row
    short: str
    current: bool

    def to_dict(self) -> dict:
        r = self.row
        return {
            "id": r.id, "short": self.short, "title": r.title, "created": r.created, "updated": r.updated,
            "model": r.model, "provider": r.provider, "agent": r.agent, "tags": r.tags, "status": r.status,
            "turns": r.turns, "current": self.current, "broken": r.broken,
        }


def listing(limit: int, ws: Workspace | None = None) -> list[Listed]:
    ws = ws or Workspace()
    rows = ws.index.refresh().recent(limit)
    now = current(ws).conv_id if rows else None
    return [Listed(r, ws.index.short_id(r.id), r.id == now) for r in rows]


def resolve_or_current(ref: str | None, ws: Workspace) -> str:
    if ref is not None:
        return refs.resolve(ws.index, ref)
    conv_id = current(ws).conv_id
    if conv_id is None:
        raise RefError("no current conversation", 'Name one (see conv list) or ask: conv ask "…"')
    return conv_id


def conversation(ref: str | None, ws: Workspace | None = None) -> Conversation:
    ws = ws or Workspace()
    return ws.conversation(resolve_or_current(ref, ws))


def raw_files(ref: str | None, ws: Workspace | None = None) -> list[tuple[str, str]]:
    """(path, text) of each file of a conversation, conversation.md first."""
    ws = ws or Workspace()
    conv_id = resolve_or_current(ref, ws)
    files = ws.store.raw_files(conv_id)
    where = ids.conversation_path(conv_id)
    order = sorted(files, key=lambda name: (name != META_FILE, name))
    return [(f"{where}/{name}", files[name].decode("utf-8", "replace")) for name in order]
