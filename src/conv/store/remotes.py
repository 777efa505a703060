"""Remotes of the store and moving commits to and from them.

The git CLI does the transfer when it is installed: for an incremental push
to a remote holding 10,000 conversations it takes 0.1 s where dulwich's
porcelain took 2.7–5 s. dulwich is the fallback, with its per-ref status
checked (its porcelain.push returns normally when the server rejects a ref).
Remote URLs live in the store's git config, which is never committed; any
password in them is masked whenever conv shows or reports a URL.
"""

import re
import shutil
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..errors import StoreError, SyncError, UsageError, writing
from .lock import clear_stale, writer_lock

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
_SECTION = re.compile(r'^\s*\[\s*(?:remote\s+"((?:[^"\\]|\\.)*)"|[^\]]*)\s*\]')
_SETTING = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*?)\s*$")
_USERINFO = re.compile(r"(?<=://)([^/@:\s]*):([^/@\s]*)@")
_HTTP_USER = re.compile(r"(?<=https://)[^/@:\s]+@|(?<=http://)[^/@:\s]+@")  # a token given as the user
_LOCKED = re.compile(r"Unable to create '([^']+\.lock)'")
TRACKING = "refs/remotes/{name}/main"
BRANCH = "refs/heads/main"


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


def redact(text: str) -> str:
    """``https://user:secret@host`` → ``https://user:***@host``, and over http(s)
    a lone user part too (``https://ghp_…@github.com``: a token), anywhere in text."""
    return _HTTP_USER.sub("***@", _USERINFO.sub(lambda m: f"{m[1]}:***@", text))


@dataclass
class Remote:
    name: str
    url: str

    @property
    def shown(self) -> str:
        return redact(self.url)


class Remotes:
    """The remotes in the store's git config."""

    def __init__(self, store_path: Path):
        self.path = store_path

    def _config(self):
        from dulwich.config import ConfigFile

        return ConfigFile.from_path(str(self.path / "config"))

    def list(self) -> list[Remote]:
        """Read with a few lines of parsing, not dulwich's config module: conv
        push runs this on its way to a git push it must keep up with."""
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
        for remote in self.list():
            if remote.name == name:
                return remote
        known = ", ".join(r.name for r in self.list()) or "none yet"
        raise UsageError(f"no remote named {name!r} (known: {known})", "Add one: conv remote add NAME URL")

    def add(self, name: str, url: str) -> Remote:
        if not _NAME.match(name):
            raise UsageError(f"{name!r} is not a remote name", "Use letters, digits, '.', '_' or '-'")
        if any(r.name == name for r in self.list()):
            raise UsageError(f"remote {name!r} exists already", f"Remove it first: conv remote remove {name}")
        if not url.strip() or any(c.isspace() for c in url.strip()):
            raise UsageError(f"{redact(url)!r} is not a URL or path")
        url = url.strip()
        if "://" not in url and ":" not in url.split("/", 1)[0]:  # a plain path: make it absolute
            url = str(Path(url).expanduser().resolve())
        with self._config_written() as config:
            config.set((b"remote", name.encode()), b"url", url.encode())
            config.set((b"remote", name.encode()), b"fetch", f"+{BRANCH}:{TRACKING.format(name=name)}".encode())
        return Remote(name, url)

    def fetch(self, remote: Remote) -> str | None:
        """The remote's main commit, now in the local object store (None: an empty remote)."""
        return fetch(self.path, remote)

    def push(self, remote: Remote, commit: str) -> "Pushed":
        """Offer ``commit`` as the remote's main, never forced."""
        return push(self.path, remote, commit)

    def remove(self, name: str) -> None:
        self.get(name)
        with self._config_written() as config:
            del config[(b"remote", name.encode())]
        (self.path / TRACKING.format(name=name)).unlink(missing_ok=True)

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
        raise SyncError(f"cannot fetch from {remote.name} ({remote.shown}): {redact(str(exc))}") from None
    sha = result.refs.get(BRANCH.encode())
    if sha:
        DiskRefsContainer(str(store_path))[tracking.encode()] = sha
    return sha.decode() if sha else None


@dataclass
class Pushed:
    ok: bool
    rejected: str = ""  # why the remote refused (non-fast-forward, a hook …)

    @property
    def behind(self) -> bool:
        """Whether the refusal means the remote has moved on (fetch, merge, try again)."""
        return not self.ok and any(why in self.rejected for why in (
            "fetch first", "non-fast-forward", "failed to update ref", "cannot lock ref", "incorrect old value",
            "stale info"))


def push(store_path: Path, remote: Remote, commit: str) -> Pushed:
    """Offer ``commit`` as the remote's main, never forced."""
    if shutil.which("git"):
        done = _git(store_path, "push", "--porcelain", remote.url, f"{commit}:{BRANCH}")
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
    from dulwich import porcelain

    try:  # dulwich wants a ref, not a commit id, on the left: the branch is at ``commit``
        result = porcelain.push(str(store_path), remote.url, refspecs=[f"{BRANCH}:{BRANCH}".encode()])
    except Exception as exc:
        text = redact(str(exc))
        if type(exc).__name__ == "DivergedBranches" or "fast-forward" in text or "rejected" in text.lower():
            return Pushed(False, "non-fast-forward")
        raise SyncError(f"cannot push to {remote.name} ({remote.shown}): {text}") from None
    status = (getattr(result, "ref_status", None) or {}).get(BRANCH.encode())
    return Pushed(status is None, status.decode() if isinstance(status, bytes) else str(status or ""))


def _git(store_path: Path, *args: str) -> subprocess.CompletedProcess:
    env_free = {"GIT_TERMINAL_PROMPT": "0"}  # a missing credential fails, it never waits for a password
    import os

    return subprocess.run(["git", "--git-dir", str(store_path), *args], capture_output=True, text=True,
                          env={**os.environ, **env_free}, stdin=subprocess.DEVNULL)


def _read_ref(store_path: Path, ref: str) -> str | None:
    done = _git(store_path, "rev-parse", "--verify", "--quiet", ref)
    return done.stdout.strip() or None


def _last_line(text: str) -> str:
    """The line of git's stderr that says what went wrong (its first fatal:)."""
    lines = [line.strip() for line in redact(text).splitlines() if line.strip()]
    first = next((n for n, line in enumerate(lines) if line.startswith("fatal:")), None)
    if first is None:
        return lines[-1] if lines else "no details"
    said = lines[first].removeprefix("fatal:").strip().rstrip(":")
    detail = lines[first + 1] if first + 1 < len(lines) and not lines[first + 1].startswith("fatal:") else ""
    return f"{said} ({detail})" if detail else said
