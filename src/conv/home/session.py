"""Which conversation a terminal is in.

A shell plugin sets ``CONV_SESSION`` once per terminal; conv keeps that
terminal's current conversation in ``<state>/sessions/<session>``, a single
line ``<id> <short id> <turns> <last used> <expires>`` (times in epoch
seconds) written atomically, so the prompt segment can read it with shell
builtins alone and hide itself once the session has expired.
Without ``CONV_SESSION``, ``-c`` means the most recently updated conversation
(``conv clear`` then hides the ones older than the clear).
"""

import os
import re
import time
from pathlib import Path

from ..errors import UsageError
from ..records import dataclass
from . import paths
from .files import write_atomic

_SESSION_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
DEFAULT = "_default"  # the file used when CONV_SESSION is unset


@dataclass
class SessionState:
    conv_id: str
    short: str
    turns: int
    last_used: float
    expires: float

    def idle(self, now: float | None = None) -> float:
        return (now or time.time()) - self.last_used


def session_name() -> str | None:
    """This terminal's session name, or None outside a conv-enabled shell."""
    name = os.environ.get("CONV_SESSION", "")
    if not name:
        return None
    if not _SESSION_RE.match(name):
        raise UsageError(
            "CONV_SESSION holds characters conv does not accept",
            "Use letters, digits, '.', '_' or '-' (the shell plugin sets it for you)",
        )
    return name


def _file(name: str) -> Path:
    return paths.state_dir() / "sessions" / name


def load(name: str) -> SessionState | None:
    try:
        conv_id, short, turns, last_used, expires = _file(name).read_text().split()
        return SessionState(conv_id, short, int(turns), float(last_used), float(expires))
    except (OSError, ValueError):
        return None  # missing or not ours: treat as no current conversation


def save(name: str, conv_id: str, short: str, turns: int, expiry: float) -> None:
    now = int(time.time())
    write_atomic(_file(name), f"{conv_id} {short} {turns} {now} {now + int(expiry)}\n")
    if os.urandom(1)[0] < 5:  # one save in 50 (random costs 2.4 ms of import)
        prune()


def note_unsaved(name: str) -> None:
    """This terminal just had an exchange that was not stored (--no-save)."""
    write_atomic(_file(name).with_name(name + ".unsaved"), f"{time.time()}\n")


def unsaved_since(name: str) -> float | None:
    """Seconds since this terminal's last exchange that was not stored, if any."""
    try:
        return time.time() - float(_file(name).with_name(name + ".unsaved").read_text())
    except (OSError, ValueError):
        return None


def save_command_conversation(name: str, conv_id: str, expiry: float) -> None:
    """This terminal's command conversation (conv cmd), apart from its current one."""
    write_atomic(_file(name).with_name(name + ".cmd"), f"{conv_id} {int(time.time() + expiry)}\n")


def command_conversation(name: str) -> str | None:
    """This terminal's command conversation, unless it expired."""
    try:
        conv_id, expires = _file(name).with_name(name + ".cmd").read_text().split()
        return conv_id if float(expires) > time.time() else None
    except (OSError, ValueError):
        return None


def note_reading(name: str, reading: dict) -> None:
    """What this terminal's last plain ask was taken as (feedback), for its undo."""
    import json

    write_atomic(_file(name).with_name(name + ".reading"), json.dumps({**reading, "time": time.time()}) + "\n")


def last_reading(name: str, within: float) -> dict | None:
    """That record, if it is younger than ``within`` seconds; it is used once."""
    import json

    path = _file(name).with_name(name + ".reading")
    try:
        reading = json.loads(path.read_text())
        path.unlink()
    except (OSError, ValueError):
        return None
    return reading if isinstance(reading, dict) and time.time() - reading.get("time", 0) <= within else None


def prune(older_than: float = 30 * 86400) -> None:
    """Forget sessions of terminals long closed (their files only)."""
    cutoff = time.time() - older_than
    for path in _file(DEFAULT).parent.glob("*"):
        try:
            if path.stat().st_mtime < cutoff and not path.name.startswith(DEFAULT):
                path.unlink()
        except OSError:
            pass


def clear(name: str) -> bool:
    """Forget the current conversation, and the command conversation (conv
    cmd's, which a second description refines); True when there was a current one."""
    _file(name).with_name(name + ".cmd").unlink(missing_ok=True)
    if name == DEFAULT:  # and the latest since now, not before, is what -c falls back to
        write_atomic(_file(DEFAULT + ".cleared"), f"{time.time()}\n")
    path = _file(name)
    existed = path.exists()
    path.unlink(missing_ok=True)
    return existed or name == DEFAULT


def cleared_at() -> float:
    """When ``conv clear`` last ran outside a session (0 if never)."""
    try:
        return float(_file(DEFAULT + ".cleared").read_text())
    except (OSError, ValueError):
        return 0.0


def forget(conv_ids) -> None:
    """Terminals that were in one of ``conv_ids`` (purged) are in none now."""
    for path in _file(DEFAULT).parent.glob("*"):
        try:
            fields = path.read_text().split()
            if fields and fields[0] in conv_ids:
                path.unlink()
        except (OSError, UnicodeDecodeError):
            continue


def redirect(old_id: str, new_id: str, short: str) -> None:
    """Terminals that were in ``old_id`` continue ``new_id`` (after a sync moved
    this machine's line of a conversation into a fork)."""
    for path in _file(DEFAULT).parent.glob("*"):
        try:
            fields = path.read_text().split()
        except OSError:
            continue
        if len(fields) == 5 and fields[0] == old_id:
            write_atomic(path, " ".join([new_id, short, *fields[2:]]) + "\n")
