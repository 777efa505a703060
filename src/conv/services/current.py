"""Which conversation "the current one" is, for ``-c``, ``show`` and ``clear``."""

from __future__ import annotations

from datetime import datetime, timezone

from ..format.model import iso, seconds_since
from ..home import session
from ..index import Filters
from ..index.queries import OWN
from ..records import dataclass

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of every follow-up): PEP 781's idiom
if TYPE_CHECKING:  # the workspace asks this module for its current conversation
    from .workspace import Workspace


@dataclass
class Current:
    conv_id: str | None
    why: str  # "session", "session-expired", "latest", or "none"
    idle: float = 0.0  # seconds since the terminal's session last used it
    short: str = ""


def current(ws: Workspace) -> Current:
    """In a conv shell: this terminal's conversation. Elsewhere: the one a
    plugin-less terminal last used, asked, forked or chose (``conv use``,
    ``conv resume``), else the latest of conv's own since ``conv clear`` (a
    session captured or imported meanwhile is never what ``-c`` continues
    unless chosen). Either way flagged when idle past ``session.expiry``, so
    ``-c`` starts afresh."""
    name = session.session_name()
    index = ws.index.refresh()
    expiry = ws.config.get("session.expiry")
    state = session.load(name or session.DEFAULT)  # (conv clear removes it: a choice since is the one)
    if state is not None and index.get(state.conv_id) is not None:
        return Current(state.conv_id, "session-expired" if state.idle() > expiry else "session",
                       state.idle(), state.short)
    if name:
        return Current(None, "none")
    cleared = session.cleared_at()
    since = iso(datetime.fromtimestamp(cleared, timezone.utc)) if cleared else None
    latest = index.recent(limit=1, filters=Filters(since=since, source=OWN))
    if not latest:
        return Current(None, "none")
    idle = seconds_since(latest[0].updated) or 0.0
    return Current(latest[0].id, "session-expired" if idle > expiry else "latest", idle, index.short_id(latest[0].id))


def forget(ws: Workspace) -> str | None:
    """``conv clear``: the id forgotten, if any."""
    was = current(ws)
    session.clear(session.session_name() or session.DEFAULT)
    return was.conv_id


def use(ws: Workspace, ref: str) -> str:
    """``conv use REF``: make REF this terminal's current conversation."""
    conv_id = ws.resolve(ref)
    # refreshed: a whole id resolves from the store alone, before the index has caught up
    ws.make_current(conv_id, ws.index.refresh().get(conv_id).turns)
    return conv_id
