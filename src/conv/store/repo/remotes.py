"""Remotes of the store and moving commits to and from them.

The git CLI does the transfer when it is installed (gitcli.py); dulwich
does it on a machine without (transfer_dulwich.py), 30 times slower.
Remote URLs live in the store's git config, which is never committed; their
credentials are masked wherever conv prints (home/secrets.py).

``conv push`` must keep within 1.5 times a bare ``git push``: what it needs
before git starts (the config's remotes, the branch) is read here with
strings and ``os.path``, without pathlib, contextlib or the lock module,
which are imported where the other transfers use them.
"""

import os
import re

from ...errors import StoreError, SyncError, UsageError, writing
from ...records import dataclass
from . import gitcli, remote_heads
from .refs import BRANCH, read_ref

TYPE_CHECKING = False  # typing's, without importing typing: PEP 781's idiom

if TYPE_CHECKING:
    from collections.abc import Callable

    from dulwich.config import ConfigFile

_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$"  # this and _LOCKED compile when first used: a push needs neither
_SECTION = re.compile(r'^\s*\[\s*(?:remote\s+"((?:[^"\\]|\\.)*)"|[^\]]*)\s*\]')
_SETTING = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*?)\s*$")
_BEHIND = ("fetch first", "non-fast-forward", "failed to update ref", "cannot lock ref", "incorrect old value",
           "stale info")  # git's and dulwich's words for a refusal because the remote moved on
_LOCKED = r"Unable to create '([^']+\.lock)'"
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
        from ...home.secrets import redact

        return redact(self.url)


class Remotes:
    """The remotes in the git config of the store at ``store`` (a folder)."""

    def __init__(self, store: str):
        self.path = store

    def _config(self):
        from dulwich.config import ConfigFile

        return ConfigFile.from_path(os.path.join(self.path, "config"))

    def list(self) -> list[Remote]:
        """Parsed here, not by dulwich's config module: conv push must keep up with git."""
        out, section = [], None
        try:
            with open(os.path.join(self.path, "config"), encoding="utf-8") as f:
                text = f.read()
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
        if not re.match(_NAME, name):
            raise UsageError(f"{name!r} is not a remote name", "Use letters, digits, '.', '_' or '-'")
        if any(r.name == name for r in self.list()):
            raise UsageError(f"remote {name!r} exists already", f"Remove it first: conv remote remove {name}")
        if not (url := url.strip()) or any(c.isspace() for c in url):
            raise UsageError(f"{url!r} is not a URL or path")
        if "://" not in url and ":" not in url.split("/", 1)[0]:  # a plain path: make it absolute
            url = os.path.realpath(os.path.expanduser(url))
        section = (b"remote", name.encode())

        def added(config) -> None:
            config.set(section, b"url", url.encode())
            config.set(section, b"fetch", f"+{BRANCH}:{TRACKING.format(name=name)}".encode())

        self._change_config(added)
        return Remote(name, url)

    def fetch(self, remote: Remote) -> str | None:
        """The remote's main commit, now in the local object store (None: an
        empty remote). A remote still holding purged text whose head has not
        moved is not fetched again: its filtered image is here already."""
        from .lock import transfer_lock

        known = self.holding_purged().get(remote.name)
        if known and known == remote_heads.advertised(remote.url, BRANCH):
            return known
        with transfer_lock(self.path, exclusive=False):
            return fetch(self.path, remote)

    def push(self, remote: Remote, commit: str, lease: str | None = None,
             meanwhile: "Callable[[], None] | None" = None) -> "Pushed":
        """Offer ``commit`` as the remote's main: never forced, or (``lease``)
        replacing its history only if its main is still at ``lease``.
        ``meanwhile`` runs while git pushes."""
        done = push(self.path, remote, commit, lease, meanwhile)
        if done.ok and remote.name in self.holding_purged():
            self.record(remote.name, None)
        return done

    def holding_purged(self) -> dict[str, str]:
        """Remotes whose last-known head still holds purged text: name -> that head."""
        return remote_heads.read(self.path)

    def record(self, name: str, real_head: str | None) -> None:
        """Note that ``name``'s tracking ref is a filtered image of ``real_head`` (None: it is the real head)."""
        remote_heads.record(self.path, name, real_head)

    def drop_unreachable(self, remote: Remote, old_head: str) -> bool:
        """After a rewrite that replaced ``old_head``: delete the objects only
        the old history reached, when the remote is a repository on a path
        (True). A server keeps them until its own gc (clones never get them)."""
        where = remote_heads.path_of(remote.url)
        if where is None:
            return False
        from .upkeep import drop_unreachable

        drop_unreachable(where, old_head)
        return True

    def remove(self, name: str) -> None:
        self.get(name)

        def removed(config) -> None:
            del config[(b"remote", name.encode())]

        self._change_config(removed)
        try:
            os.unlink(os.path.join(self.path, TRACKING.format(name=name)))
        except FileNotFoundError:
            pass
        if name in self.holding_purged():
            self.record(name, None)

    def _change_config(self, change: "Callable[[ConfigFile], None]") -> None:
        """``change`` the store's git config and write it back, under conv's
        writer lock, after the ``config.lock`` of a process that died is removed."""
        from .lock import clear_stale, writer_lock

        with writing(self.path), writer_lock(self.path):
            clear_stale(os.path.join(self.path, "config.lock"))
            config = self._config()
            change(config)
            config.write_to_path(os.path.join(self.path, "config"))


def fetch(store_path: str, remote: Remote) -> str | None:
    """The remote's main commit, now in the local object store (None: empty remote)."""
    from .lock import clear_stale, writer_lock

    tracking = TRACKING.format(name=remote.name)
    with writer_lock(store_path):  # a fetch killed while moving the tracking ref left its lock
        clear_stale(os.path.join(store_path, f"{tracking}.lock"))
    try:
        done = _git(store_path, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote.url,
                    f"+{BRANCH}:{tracking}")
    except FileNotFoundError:  # no git CLI
        from . import transfer_dulwich

        return transfer_dulwich.fetch(store_path, remote, tracking)
    if done.returncode:
        if "couldn't find remote ref" in done.stderr.lower():
            return None  # a new, empty remote
        locked = re.search(_LOCKED, done.stderr)
        if locked:  # taken since, by a git of the user's: a local matter, not the network's
            raise StoreError(f"{locked[1]} is held by another git process", "Let it finish and run the command again")
        raise SyncError(f"cannot fetch from {remote.name} ({remote.shown}): {git_reason(done.stderr)}",
                        "Is the remote reachable? conv remote list shows the URL")
    return read_ref(store_path, tracking)


@dataclass
class Pushed:
    ok: bool
    rejected: str = ""  # why the remote refused (non-fast-forward, a hook …)

    @property
    def behind(self) -> bool:  # the remote has moved on: fetch, merge, try again
        return not self.ok and any(why in self.rejected for why in _BEHIND)


def push(store_path: str, remote: Remote, commit: str, lease: str | None = None,
         meanwhile: "Callable[[], None] | None" = None) -> Pushed:
    """Offer ``commit`` as the remote's main, never forced; with a ``lease``,
    forced only if the remote's main is still at that commit. Once it is
    there, the remote-tracking ref follows (git does that for a remote named).
    ``meanwhile`` runs while git pushes (not at all without git)."""
    forced = [f"--force-with-lease={BRANCH}:{lease}"] if lease else []
    try:
        done = _git(store_path, "push", "--porcelain", *forced, remote.name, f"{commit}:{BRANCH}", meanwhile=meanwhile)
    except FileNotFoundError:  # no git CLI
        from . import transfer_dulwich

        return Pushed(*transfer_dulwich.push(store_path, remote, commit, TRACKING.format(name=remote.name), lease))
    for line in done.stdout.splitlines():  # --porcelain: FLAG \t FROM:TO \t SUMMARY
        flag, _, rest = line.partition("\t")
        if f":{BRANCH}" in rest:
            if flag == "!":
                return Pushed(False, rest.split("\t")[-1].strip() or "rejected")
            return Pushed(True)
    if done.returncode:
        reason = git_reason(done.stderr)
        if "rejected" in done.stderr or "non-fast-forward" in done.stderr:
            return Pushed(False, reason)
        raise SyncError(f"cannot push to {remote.name} ({remote.shown}): {reason}",
                        "Is the remote reachable? conv remote list shows the URL")
    return Pushed(True)


def _git(store_path: str, *args: str, meanwhile: "Callable[[], None] | None" = None) -> gitcli.Ran:
    """git in the store; a missing credential fails, it never waits for a password."""
    return gitcli.run("--git-dir", store_path, *args, env={**os.environ, "GIT_TERMINAL_PROMPT": "0"},
                      meanwhile=meanwhile)


def git_reason(text: str) -> str:
    """The line of git's stderr that says what went wrong (its first fatal:)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = next((n for n, line in enumerate(lines) if line.startswith("fatal:")), None)
    if first is None:
        return lines[-1] if lines else "no details"
    said = lines[first].removeprefix("fatal:").strip().rstrip(":")
    detail = lines[first + 1] if first + 1 < len(lines) and not lines[first + 1].startswith("fatal:") else ""
    return f"{said} ({detail})" if detail else said
