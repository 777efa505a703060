"""Remotes, push, pull and sync: git is the distributed engine, conv adds a
merge that never loses a turn and a loop that never force-pushes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import SyncError, UsageError
from ..home import session

if TYPE_CHECKING:  # not imported at run time: conv push must not load the index
    from ..store.remotes import Remote
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


def push_only(ws: Workspace, name: str | None) -> Synced:
    """``conv push``: offer this store's head, without fetching first (the
    remote refuses what is not a fast-forward) and without opening the index
    or the config: it has to keep up with a bare git push."""
    remote = pick(ws, name)
    out = Synced(remote.name, rounds=1)
    mine = ws.store.head()
    done = ws.store.remotes.push(remote, mine) if mine else None
    if done is not None and not done.ok:
        if done.behind:
            raise SyncError(f"{remote.name} has commits this store lacks", f"Pull them first: conv pull {remote.name}")
        raise SyncError(f"{remote.name} refused the push: {done.rejected}",
                        "Nothing is lost locally; check the remote's hooks or permissions")
    out.pushed = done is not None
    return out


def pick(ws: Workspace, name: str | None) -> Remote:
    """The named remote, or the only one there is."""
    known = ws.store.remotes
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
        return push_only(ws, name)
    remote = pick(ws, name)
    transfer = ws.store.remotes
    out = Synced(remote.name)
    for out.rounds in range(1, ROUNDS + 1):
        theirs = transfer.fetch(remote)
        if theirs:
            merged = ws.store.merge_from(theirs, remote.name)
            if merged.kind != "up to date":
                out.pulled, out.forks, out.backup = merged.kind, out.forks + merged.forks, merged.backup
            _follow_moved_lines(ws, merged.moved)
            out.moved.update(merged.moved)
        mine = ws.store.head()
        if not send or mine is None or mine == theirs:
            break
        done = transfer.push(remote, mine)
        if done.ok:
            out.pushed = True
            break
        if not done.behind and transfer.fetch(remote) == theirs:
            raise SyncError(f"{remote.name} refused the push: {done.rejected}",
                            "Nothing is lost locally; check the remote's hooks or permissions")
        # the remote moved meanwhile (another machine pushed): fetch, merge, push again
    else:
        raise SyncError(f"{remote.name} kept moving for {ROUNDS} rounds", "Nothing is lost; run conv sync again")
    ws.index.refresh()
    return out


def _follow_moved_lines(ws: Workspace, moved: dict[str, str]) -> None:
    for old_id, fork_id in moved.items():
        ws.index.refresh()
        session.redirect(old_id, fork_id, ws.index.queries.short_id(fork_id))


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


def remotes(ws: Workspace) -> list[Remote]:
    """The store's remotes, by name (their URLs shown with ``.shown``)."""
    return ws.store.remotes.list()


def add_remote(ws: Workspace, name: str, url: str) -> Remote:
    return ws.store.remotes.add(name, url)


def remove_remote(ws: Workspace, name: str) -> None:
    ws.store.remotes.remove(name)
