"""The last steps of an ask, in one place for ask, retry and chat: after
each commit the index and this terminal's session follow it; after an
answer, a background sync when ``sync.auto`` is set."""

from ...format.model import Conversation
from ...store import Written
from ..workspace import Workspace


def committed(ws: Workspace, conv: Conversation, written: Written) -> None:
    """Keep the index and this terminal's session file in step with the commit."""
    ws.index.record(conv, written.old, written.new)
    ws.make_current(conv.id, len(written.names))


def answered(ws: Workspace, saved: bool) -> None:
    """After an answer: the background sync, when one is due; after one not
    stored (--no-save), a note that the terminal's last exchange is not its
    current conversation's, so "try again" is not taken as feedback on that."""
    if not saved:
        from ...home import session

        session.note_unsaved(session.session_name() or session.DEFAULT)
    elif ws.config.get("sync.auto"):
        from ..sync import auto_sync

        auto_sync(ws)
