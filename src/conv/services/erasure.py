"""After a purge, here or learned from another machine by a sync: the index
is rebuilt into a new file (deleted rows would leave their text in free
pages of the old one) and conv's files beside the store forget the
conversations (home/traces.py)."""

from ..errors import ConvError
from ..home import traces
from .workspace import Workspace


def questions(ws: Workspace, conv_ids) -> list[str]:
    """What was asked in those conversations (live or deleted), read before they go."""
    out = []
    for conv_id in conv_ids:
        for trashed in (False, True):
            try:
                conv = ws.store.read(conv_id, trashed=trashed)
            except (ConvError, KeyError):
                continue
            out += [turn.content for turn in conv.turns if turn.role == "user"]
    return out


def forget(ws: Workspace, conv_ids, asked: list[str]) -> None:
    ws.index.rebuild()
    traces.erase(conv_ids, asked)
