"""Which conversation "the current one" is, for ``-c``, ``show`` and ``clear``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..format.model import iso
from ..home import session
from ..index import Filters

if TYPE_CHECKING:  # the workspace asks this module for its current conversation
    from .workspace import Workspace


@dataclass
class Current:
    conv_id: str | None
    why: str  # "session", "session-expired", "latest", or "none"
    idle: float = 0.0  # seconds since the terminal's session last used it
    short: str = ""


def current(ws: Workspace) -> Current:
    """In a conv shell: this terminal's conversation (flagged when idle past
    ``session.expiry``). Elsewhere: the latest conversation since ``conv clear``."""
    name = session.session_name()
    index = ws.index.refresh()
    if name:
        state = session.load(name)
        if state is None or index.get(state.conv_id) is None:
            return Current(None, "none")
        expired = state.idle() > ws.config.get("session.expiry")
        return Current(state.conv_id, "session-expired" if expired else "session", state.idle(), state.short)
    cleared = session.cleared_at()
    since = iso(datetime.fromtimestamp(cleared, timezone.utc)) if cleared else None
    latest = index.recent(limit=1, filters=Filters(since=since))
    if not latest:
        return Current(None, "none")
    return Current(latest[0].id, "latest", short=index.short_id(latest[0].id))


def forget(ws: Workspace) -> str | None:
    """``conv clear``: the id forgotten, if any."""
    was = current(ws)
    session.clear(session.session_name() or session.DEFAULT)
    return was.conv_id


def require_session() -> None:
    """Only a terminal with a conv session can keep a current conversation."""
    if not session.session_name():
        raise UsageError("this terminal has no conv session", 'Load the shell plugin: eval "$(conv init zsh)" (or bash, fish)')


def use(ws: Workspace, ref: str) -> str:
    """``conv use REF``: make REF this terminal's current conversation."""
    require_session()
    conv_id = ws.resolve(ref)
    # refreshed: a whole id resolves from the store alone, before the index has caught up
    ws.make_current(conv_id, ws.index.refresh().get(conv_id).turns)
    return conv_id
