"""Remotes, push, pull and sync: git is the distributed engine, conv adds a
merge that never loses a turn and a loop that never force-pushes."""

from __future__ import annotations

from ..errors import SyncError, UsageError
from ..records import dataclass, field

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of conv push): PEP 781's idiom

if TYPE_CHECKING:  # not imported at run time: conv push must not load the index
    from collections.abc import Callable

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
    erased: list[str] = field(default_factory=list)  # purged on another machine: erased here too
    holds_purged: bool = False  # the remote's history still holds purged conversations
    rewritten: bool = False  # conv remote purge replaced the remote's history
    remote_pruned: bool = False  # ... and deleted its unreachable objects (a remote on a path)

    def to_dict(self) -> dict:
        return {"remote": self.remote, "pulled": self.pulled, "pushed": self.pushed, "rounds": self.rounds,
                "forks": self.forks, "moved": self.moved, "backup": self.backup, "erased": self.erased,
                "holds_purged": self.holds_purged, "rewritten": self.rewritten, "remote_pruned": self.remote_pruned}


def push(ws: Workspace, name: str | None, meanwhile: Callable[[], None] | None = None) -> Synced:
    """``conv push``: offer this store's head, without fetching first (the
    remote refuses what is not a fast-forward) and without opening the index
    or the config: it has to keep up with a bare git push. ``meanwhile``
    runs while git pushes, if git does (the caller's own imports, say)."""
    remote = pick(ws, name)
    out = Synced(remote.name, rounds=1)
    mine = ws.store.head()
    done = ws.store.remotes.push(remote, mine, meanwhile=meanwhile) if mine else None
    if done is not None and not done.ok:
        if remote.name in ws.store.remotes.holding_purged():
            raise _still_holds(remote.name)
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


def sync(ws: Workspace, name: str | None, send: bool = True, rewrite: bool = False) -> Synced:
    """Fetch, merge, push (unless not ``send``: conv pull), and again while
    another machine pushed meanwhile. A remote that still holds purged
    conversations is pulled from (filtered) but never pushed to, unless
    ``rewrite`` (conv remote purge): then its history is replaced, with a
    lease on the head just fetched."""
    remote = pick(ws, name)
    transfer = ws.store.remotes
    out = Synced(remote.name)
    refused = None  # (the remote's head, why) when it refused a push
    for out.rounds in range(1, ROUNDS + 1):
        raw = transfer.fetch(remote)
        if refused and refused[0] == raw:  # it did not move: the refusal was not a race
            raise _refusal(remote.name, refused[1], out.holds_purged)
        theirs = _pull(ws, out, raw) if raw else None
        mine = ws.store.head()
        if not send or mine is None or (out.holds_purged and not rewrite) or (mine == theirs and not out.holds_purged):
            break
        done = transfer.push(remote, mine, lease=raw if out.holds_purged else None)
        if done.ok:
            out.pushed, out.rewritten = True, out.holds_purged
            replaced = raw
            break
        refused = (raw, done.rejected)  # the remote moved meanwhile (another machine pushed), or it refuses
    else:
        raise SyncError(f"{remote.name} kept moving for {ROUNDS} rounds", "Nothing is lost; run conv sync again")
    if out.rewritten:
        out.holds_purged, out.remote_pruned = False, transfer.drop_unreachable(remote, replaced)
    ws.index.refresh()
    if out.holds_purged and send:
        raise _still_holds(remote.name)
    return out


def _pull(ws: Workspace, out: Synced, raw: str) -> str:
    """Merge the fetched head, filtered; erase here what the remote's tombstone names. Returns what was merged."""
    from . import erasure  # not loaded by conv push

    erased = ws.store.newly_purged(raw)
    asked = erasure.questions(ws, erased)
    merged = ws.store.merge_from(raw, out.remote)
    if merged.kind != "up to date":
        out.pulled, out.forks, out.backup = merged.kind, out.forks + merged.forks, merged.backup
    if merged.erased:
        erasure.forget(ws, merged.erased, asked)
        out.erased += merged.erased
    _follow_moved_lines(ws, merged.moved)
    out.moved.update(merged.moved)
    out.holds_purged = merged.holds_purged
    return merged.theirs


def _still_holds(name: str) -> SyncError:
    return SyncError(f"{name} still holds purged conversations, so this store does not push there",
                     f"Erase them there: conv remote purge {name}")


def _refusal(name: str, why: str, rewriting: bool) -> SyncError:
    if rewriting:
        return SyncError(f"{name} refused the rewrite of its history: {why}",
                         f"They are erased on this machine only: allow force-pushes to {name}'s main branch "
                         f"(e.g. unprotect it), then run conv remote purge {name} again")
    return SyncError(f"{name} refused the push: {why}",
                     "Nothing is lost locally; check the remote's hooks or permissions")


def _follow_moved_lines(ws: Workspace, moved: dict[str, str]) -> None:
    from ..home import session

    for old_id, fork_id in moved.items():
        ws.index.refresh()
        session.redirect(old_id, fork_id, ws.index.queries.short_id(fork_id))


AUTO_EVERY = 60  # seconds between background syncs


def auto_sync(ws: Workspace) -> bool:
    """After an answer: start ``conv sync REMOTE`` in the background when
    ``sync.auto`` names a remote and the last one started a minute ago or more.
    A remote that is not there, and what went wrong with the last background
    sync (its error line is kept), are said, once each, never in silence."""
    import os
    import subprocess
    import sys

    from ..home import paths
    from ..home.files import due

    name = ws.config.get("sync.auto")
    if not name:
        return False
    state = paths.state_dir()
    missing = name not in {r.name for r in ws.store.remotes.list()}
    _said_once(ws, state, f"sync.auto names {name!r}, which is no remote of this store (conv remote list): nothing "
                          "is synced in the background" if missing else _last_failure(state))
    if missing:
        return False
    if not due(state / "auto-sync.stamp", AUTO_EVERY):
        return False
    with open(state / "auto-sync.log", "wb") as log:
        subprocess.Popen([sys.executable, "-m", "conv", "sync", name], stdin=subprocess.DEVNULL, stdout=log,
                         stderr=log, start_new_session=True, env=os.environ.copy())
    return True


def _last_failure(state) -> str | None:
    """The error line of the last background sync, if it failed."""
    try:
        lines = (state / "auto-sync.log").read_text(errors="replace").splitlines()
    except OSError:
        return None
    failed = [line for line in lines if line.startswith("conv: error: ")]
    return f"the background sync (sync.auto) failed: {failed[-1][len('conv: error: '):]}" if failed else None


def _said_once(ws: Workspace, state, problem: str | None) -> None:
    """Say ``problem`` unless it is the one said last; no problem: forget it, so the next is said."""
    said = state / "auto-sync.said"
    try:
        last = said.read_text()
    except OSError:
        last = ""
    if problem and problem != last:
        ws.notice(problem)
        said.parent.mkdir(parents=True, exist_ok=True)
        said.write_text(problem)
    elif problem is None and last:
        said.unlink(missing_ok=True)


def remotes(ws: Workspace) -> list[Remote]:
    """The store's remotes, by name (their URLs shown with ``.shown``)."""
    return ws.store.remotes.list()


def add_remote(ws: Workspace, name: str, url: str) -> Remote:
    return ws.store.remotes.add(name, url)


def remove_remote(ws: Workspace, name: str) -> None:
    ws.store.remotes.remove(name)
