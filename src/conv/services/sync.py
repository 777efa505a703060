"""Remotes, push, pull and sync: git is the distributed engine, conv adds a
merge that never loses a turn and a loop that never force-pushes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..home import session
from ..store.remotes import Remote, Remotes, SyncError, fetch, push

if TYPE_CHECKING:  # not imported at run time: conv push must not load the index
    from ..store import Store
    from .workspace import Workspace

ROUNDS = 5  # fetch-merge-push rounds before giving up on a busy remote


@dataclass
class Synced:
    remote: str
    pulled: str = "up to date"  # up to date, fast-forward, merged
    pushed: bool = False
    rounds: int = 0
    forks: int = 0
    moved: dict[str, str] = field(default_factory=dict)
    backup: str | None = None

    def to_dict(self) -> dict:
        return {"remote": self.remote, "pulled": self.pulled, "pushed": self.pushed, "rounds": self.rounds,
                "forks": self.forks, "moved": self.moved, "backup": self.backup}


def push_only(store: "Store", name: str | None) -> Synced:
    """``conv push``: offer this store's head, without fetching first (the
    remote refuses what is not a fast-forward) and without opening the index
    or the config: it has to keep up with a bare git push."""
    remote = _pick(Remotes(store.path), name)
    out = Synced(remote.name, rounds=1)
    mine = store.head()
    done = push(store.path, remote, mine) if mine else None
    if done is not None and not done.ok:
        if _behind(done.rejected):
            raise SyncError(f"{remote.name} has commits this store lacks", f"Pull them first: conv pull {remote.name}")
        raise SyncError(f"{remote.name} refused the push: {done.rejected}",
                        "Nothing is lost locally; check the remote's hooks or permissions")
    out.pushed = done is not None
    return out


def remotes(ws: Workspace) -> Remotes:
    ws.store.git  # the store exists from here on
    return Remotes(ws.store.path)


def pick(ws: Workspace, name: str | None) -> Remote:
    """The named remote, or the only one there is."""
    return _pick(remotes(ws), name)


def _pick(known: Remotes, name: str | None) -> Remote:
    if name:
        return known.get(name)
    every = known.list()
    if len(every) == 1:
        return every[0]
    if not every:
        raise UsageError("no remote yet", "Add one: conv remote add origin git@host:me/conversations.git")
    raise UsageError("several remotes: " + ", ".join(r.name for r in every), "Name one, e.g. conv sync origin")


def sync(ws: Workspace, name: str | None, pull: bool = True, send: bool = True) -> Synced:
    """Fetch, merge, push, and again while another machine pushed meanwhile.
    A push alone does not fetch first: the remote refuses what is not a
    fast-forward, and only then is there something to explain."""
    if not pull:
        return push_only(ws.store, name)
    remote = pick(ws, name)
    out = Synced(remote.name)
    for out.rounds in range(1, ROUNDS + 1):
        theirs = fetch(ws.store.path, remote)
        if theirs:
            merged = ws.store.merge_from(theirs, remote.name)
            if merged.kind != "up to date":
                out.pulled, out.forks, out.backup = merged.kind, out.forks + merged.forks, merged.backup
            _follow_moved_lines(ws, merged.moved)
            out.moved.update(merged.moved)
        mine = ws.store.head()
        if not send or mine is None or mine == theirs:
            break
        done = push(ws.store.path, remote, mine)
        if done.ok:
            out.pushed = True
            break
        if not _behind(done.rejected) and fetch(ws.store.path, remote) == theirs:
            raise SyncError(f"{remote.name} refused the push: {done.rejected}",
                            "Nothing is lost locally; check the remote's hooks or permissions")
        # the remote moved meanwhile (another machine pushed): fetch, merge, push again
    else:
        raise SyncError(f"{remote.name} kept moving for {ROUNDS} rounds", "Nothing is lost; run conv sync again")
    ws.index.refresh()
    return out


def _behind(rejected: str) -> bool:
    """Whether a refusal means the remote has moved on (fetch, merge, retry)."""
    return any(why in rejected for why in ("fetch first", "non-fast-forward", "failed to update ref",
                                           "cannot lock ref", "incorrect old value", "stale info"))


def _follow_moved_lines(ws: Workspace, moved: dict[str, str]) -> None:
    for old_id, fork_id in moved.items():
        ws.index.refresh()
        session.redirect(old_id, fork_id, ws.index.short_id(fork_id))


AUTO_EVERY = 60  # seconds between background syncs


def auto_sync(ws: Workspace) -> bool:
    """After an answer: start ``conv sync REMOTE`` in the background when
    ``sync.auto`` names a remote and the last one started a minute ago or more."""
    import os
    import subprocess
    import sys
    import time

    from ..home import paths

    name = ws.config.get("sync.auto")
    if not name:
        return False
    stamp = paths.state_dir() / "auto-sync.stamp"
    try:
        if time.time() - stamp.stat().st_mtime < AUTO_EVERY:
            return False
    except FileNotFoundError:
        pass
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.touch()
    subprocess.Popen([sys.executable, "-m", "conv", "sync", name], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, env=os.environ.copy())
    return True
