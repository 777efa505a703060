"""Remotes of the store and moving commits to and from them.

The git CLI does the transfer when it is installed: for an incremental push
to a remote holding 10,000 conversations it takes 0.1 s where dulwich's
porcelain took 2.7–5 s. dulwich is the fallback, with its per-ref status
checked (its porcelain.push returns normally when the server rejects a ref).
Remote URLs live in the store's git config, which is never committed; their
credentials are masked wherever conv prints (home/secrets.py).
"""

import os
import re
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path

from ..errors import StoreError, SyncError, UsageError, writing
from ..home.secrets import redact
from ..records import dataclass
from . import holding
from .lock import clear_stale, transfer_lock, writer_lock
from .refs import BRANCH

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
_SECTION = re.compile(r'^\s*\[\s*(?:remote\s+"((?:[^"\\]|\\.)*)"|[^\]]*)\s*\]')
_SETTING = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*?)\s*$")
_BEHIND = ("fetch first", "non-fast-forward", "failed to update ref", "cannot lock ref", "incorrect old value",
           "stale info")  # git's and dulwich's words for a refusal because the remote moved on
_LOCKED = re.compile(r"Unable to create '([^']+\.lock)'")
TRACKING = "refs/remotes/{name}/main"


def _unquote(value: str) -> str:
    """A git config value: quotes dropped, backslash escapes resolved."""
    out, quoted, chars = [], False, iter(value)
    for c in chars:
        if c == '"':
            quoted = not quoted
        elif c == "\\":
            nxt = next(chars, "")
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(nxt, nxt))
        elif c in "#;" and not quoted:
            break  # a comment
        else:
            out.append(c)
    return "".join(out).strip()


@dataclass
class Remote:
    name: str
    url: str

    @property
    def shown(self) -> str:
        """The URL as conv shows it: ``https://***@host/…``."""
        return redact(self.url)


class Remotes:
    """The remotes in the store's git config."""

    def __init__(self, store_path: Path):
        self.path = store_path

    def _config(self):
        from dulwich.config import ConfigFile

        return ConfigFile.from_path(str(self.path / "config"))

    def list(self) -> list[Remote]:
        """Parsed here, not by dulwich's config module: conv push must keep up with git."""
        out, section = [], None
        try:
            text = (self.path / "config").read_text()
        except FileNotFoundError:
            return []
        for line in text.splitlines():
            header = _SECTION.match(line)
            if header:
                section = header[1] if header[1] is not None else None
                continue
            setting = _SETTING.match(line)
            if section is not None and setting and setting[1].lower() == "url":
                out.append(Remote(section, _unquote(setting[2])))
        return sorted(out, key=lambda r: r.name)

    def get(self, name: str) -> Remote:
        remotes = self.list()
        found = next((r for r in remotes if r.name == name), None)
        if found:
            return found
        known = ", ".join(r.name for r in remotes) or "none yet"
        raise UsageError(f"no remote named {name!r} (known: {known})", "Add one: conv remote add NAME URL")

    def add(self, name: str, url: str) -> Remote:
        if not _NAME.match(name):
            raise UsageError(f"{name!r} is not a remote name", "Use letters, digits, '.', '_' or '-'")
        if any(r.name == name for r in self.list()):
            raise UsageError(f"remote {name!r} exists already", f"Remove it first: conv remote remove {name}")
        if not (url := url.strip()) or any(c.isspace() for c in url):
            raise UsageError(f"{url!r} is not a URL or path")
        if "://" not in url and ":" not in url.split("/", 1)[0]:  # a plain path: make it absolute
            url = str(Path(url).expanduser().resolve())
        with self._config_written() as config:
            config.set((b"remote", name.encode()), b"url", url.encode())
            config.set((b"remote", name.encode()), b"fetch", f"+{BRANCH}:{TRACKING.format(name=name)}".encode())
        return Remote(name, url)

    def fetch(self, remote: Remote) -> str | None:
        """The remote's main commit, now in the local object store (None: an
        empty remote). A remote still holding purged text whose head has not
        moved is not fetched again: its filtered image is here already."""
        known = self.holding_purged().get(remote.name)
        if known and known == holding.advertised(remote.url, BRANCH):
            return known
        with transfer_lock(self.path, exclusive=False):
            return fetch(self.path, remote)

    def push(self, remote: Remote, commit: str, lease: str | None = None) -> "Pushed":
        """Offer ``commit`` as the remote's main: never forced, or (``lease``)
        replacing its history only if its main is still at ``lease``."""
        done = push(self.path, remote, commit, lease)
        if done.ok and remote.name in self.holding_purged():
            self.record(remote.name, None)
        return done

    def holding_purged(self) -> dict[str, str]:
        """Remotes whose last-known head still holds purged text: name -> that head."""
        return holding.read(self.path)

    def record(self, name: str, real_head: str | None) -> None:
        """Note that ``name``'s tracking ref is a filtered image of ``real_head`` (None: it is the real head)."""
        holding.record(self.path, name, real_head)

    def drop_unreachable(self, remote: Remote, old_head: str) -> bool:
        """After a rewrite that replaced ``old_head``: delete the objects only
        the old history reached, when the remote is a repository on a path
        (True). A server keeps them until its own gc (clones never get them)."""
        where = holding.path_of(remote.url)
        if where is None:
            return False
        from .upkeep import drop_unreachable

        drop_unreachable(where, old_head)
        return True

    def remove(self, name: str) -> None:
        self.get(name)
        with self._config_written() as config:
            del config[(b"remote", name.encode())]
        (self.path / TRACKING.format(name=name)).unlink(missing_ok=True)
        if name in self.holding_purged():
            self.record(name, None)

    @contextmanager
    def _config_written(self):
        """The store's git config to change, written back under conv's writer
        lock, after the ``config.lock`` of a process that died is removed."""
        with writing(self.path), writer_lock(self.path):
            clear_stale(self.path / "config.lock")
            config = self._config()
            yield config
            config.write_to_path(str(self.path / "config"))


def fetch(store_path: Path, remote: Remote) -> str | None:
    """The remote's main commit, now in the local object store (None: empty remote)."""
    tracking = TRACKING.format(name=remote.name)
    with writer_lock(store_path):  # a fetch killed while moving the tracking ref left its lock
        clear_stale(store_path / f"{tracking}.lock")
    if shutil.which("git"):
        done = _git(store_path, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote.url,
                    f"+{BRANCH}:{tracking}")
        if done.returncode:
            if "couldn't find remote ref" in done.stderr.lower():
                return None  # a new, empty remote
            locked = _LOCKED.search(done.stderr)
            if locked:  # taken since, by a git of the user's: a local matter, not the network's
                raise StoreError(f"{locked[1]} is held by another git process",
                                 "Let it finish and run the command again")
            raise SyncError(f"cannot fetch from {remote.name} ({remote.shown}): {_last_line(done.stderr)}",
                            "Is the remote reachable? conv remote list shows the URL")
        return _read_ref(store_path, tracking)
    from dulwich import porcelain
    from dulwich.refs import DiskRefsContainer

    try:
        result = porcelain.fetch(str(store_path), remote.url)
    except Exception as exc:  # dulwich raises many kinds, all meaning "could not fetch"
        raise SyncError(f"cannot fetch from {remote.name} ({remote.shown}): {exc}") from None
    sha = result.refs.get(BRANCH.encode())
    if sha:
        DiskRefsContainer(str(store_path))[tracking.encode()] = sha
    return sha.decode() if sha else None


@dataclass
class Pushed:
    ok: bool
    rejected: str = ""  # why the remote refused (non-fast-forward, a hook …)

    @property
    def behind(self) -> bool:  # the remote has moved on: fetch, merge, try again
        return not self.ok and any(why in self.rejected for why in _BEHIND)


def push(store_path: Path, remote: Remote, commit: str, lease: str | None = None) -> Pushed:
    """Offer ``commit`` as the remote's main, never forced; with a ``lease``,
    forced only if the remote's main is still at that commit. Once it is
    there, the remote-tracking ref follows (git does that for a remote named)."""
    if shutil.which("git"):
        forced = [f"--force-with-lease={BRANCH}:{lease}"] if lease else []
        done = _git(store_path, "push", "--porcelain", *forced, remote.name, f"{commit}:{BRANCH}")
        for line in done.stdout.splitlines():  # --porcelain: FLAG \t FROM:TO \t SUMMARY
            flag, _, rest = line.partition("\t")
            if f":{BRANCH}" in rest:
                if flag == "!":
                    return Pushed(False, rest.split("\t")[-1].strip() or "rejected")
                return Pushed(True)
        if done.returncode:
            reason = _last_line(done.stderr)
            if "rejected" in done.stderr or "non-fast-forward" in done.stderr:
                return Pushed(False, reason)
            raise SyncError(f"cannot push to {remote.name} ({remote.shown}): {reason}",
                            "Is the remote reachable? conv remote list shows the URL")
        return Pushed(True)
    if lease:
        return _push_with_lease(store_path, remote, commit, lease)
    from dulwich import porcelain

    try:  # dulwich wants a ref, not a commit id, on the left: the branch is at ``commit``
        result = porcelain.push(str(store_path), remote.url, refspecs=[f"{BRANCH}:{BRANCH}".encode()])
    except Exception as exc:
        text = str(exc)
        if type(exc).__name__ == "DivergedBranches" or "fast-forward" in text or "rejected" in text.lower():
            return Pushed(False, "non-fast-forward")
        raise SyncError(f"cannot push to {remote.name} ({remote.shown}): {text}") from None
    status = (getattr(result, "ref_status", None) or {}).get(BRANCH.encode())
    why = status.decode() if isinstance(status, bytes) else str(status or "")
    return _followed(store_path, remote, commit, Pushed(status is None, why))


def _push_with_lease(store_path: Path, remote: Remote, commit: str, lease: str) -> Pushed:
    """dulwich's push with git's protocol-level lease: the update names the
    old value the server must still have, so a remote that moved refuses it."""
    from dulwich.client import get_transport_and_path
    from dulwich.repo import Repo

    def update(refs: dict) -> dict:
        if refs.get(BRANCH.encode()) != lease.encode():
            raise _Moved
        return {BRANCH.encode(): commit.encode()}

    try:
        with Repo(str(store_path)) as repo:
            client, path = get_transport_and_path(remote.url)
            result = client.send_pack(path, update, generate_pack_data=lambda have, want, **kw:
                                      repo.generate_pack_data(set(have), set(want), **kw))
    except _Moved:
        return Pushed(False, "stale info")
    except Exception as exc:
        raise SyncError(f"cannot push to {remote.name} ({remote.shown}): {redact(str(exc))}") from None
    status = (getattr(result, "ref_status", None) or {}).get(BRANCH.encode())
    return _followed(store_path, remote, commit, Pushed(status is None, str(status or "")))


class _Moved(Exception):
    """The remote's main is no longer at the lease."""


def _followed(store_path: Path, remote: Remote, commit: str, done: Pushed) -> Pushed:
    """After dulwich pushed ``commit``, the remote-tracking ref follows, as git's does."""
    if done.ok:
        from dulwich.refs import DiskRefsContainer

        DiskRefsContainer(str(store_path))[TRACKING.format(name=remote.name).encode()] = commit.encode()
    return done


def _git(store_path: Path, *args: str) -> subprocess.CompletedProcess:
    """git in the store; a missing credential fails, it never waits for a password."""
    return subprocess.run(["git", "--git-dir", str(store_path), *args], capture_output=True, text=True,
                          env={**os.environ, "GIT_TERMINAL_PROMPT": "0"}, stdin=subprocess.DEVNULL)


def _read_ref(store_path: Path, ref: str) -> str | None:
    return _git(store_path, "rev-parse", "--verify", "--quiet", ref).stdout.strip() or None


def _last_line(text: str) -> str:
    """The line of git's stderr that says what went wrong (its first fatal:)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = next((n for n, line in enumerate(lines) if line.startswith("fatal:")), None)
    if first is None:
        return lines[-1] if lines else "no details"
    said = lines[first].removeprefix("fatal:").strip().rstrip(":")
    detail = lines[first + 1] if first + 1 < len(lines) and not lines[first + 1].startswith("fatal:") else ""
    return f"{said} ({detail})" if detail else said
