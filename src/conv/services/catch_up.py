"""``import.auto``: the catch-up for what no hook reaches (tools with no
hook, sessions from before ``conv connect``, a hook that failed). After a
person's command, at most once a minute, a background worker looks at every
tool's session files by name, size and time (a stat each, nothing read on
the command's own path) and imports the tools whose files changed, through
``conv import``'s own path: a session file that did not change is not read."""

import json
import os

from ..errors import ConvError
from ..home.files import due as is_due
from ..home.files import json_object, write_atomic
from ..home.to_say import folder

EVERY = 60  # seconds between catch-ups


def on_command(ws) -> None:
    """As a person's command starts: what the background kept to be said, and
    the catch-up when it is due (kept light: a follow-up's start-up runs it)."""
    from ..home.to_say import tell

    tell(ws.notice)
    _stranded()
    due(ws, now)


def _stranded() -> None:
    """Jobs a worker left behind (killed while it waited) taken up by a person's next command: no hook may
    come for them. A scan of the queue's folder; the capture's module only when it holds one."""
    try:
        with os.scandir(folder() / "queue") as entries:
            if not any(e.name.endswith(".json") and not e.name.startswith(".") for e in entries):
                return
    except OSError:
        return
    from .capture import wake_worker

    wake_worker()


def now() -> None:
    """The catch-up started at once, by whichever worker holds the lock (a tool just connected: what it wrote
    before was passed over by the catch-ups that ran while it was not, and the next is a minute away)."""
    from .capture import start_worker

    start_worker(["--catch-up"])


def due(ws, start) -> None:
    """``start()`` the catch-up when ``import.auto`` is on and the last one
    started a minute ago or more (a config conv cannot read is the command's to say)."""
    try:
        if not ws.config.get("import.auto"):
            return
    except ConvError:
        return
    if is_due(folder() / "catch-up.stamp", EVERY):
        start()


def catch_up(importing) -> None:
    """``importing(source)`` (True when it went in) for each tool whose files
    changed since the last catch-up; a coding agent's only when it is connected
    (the capture's ``keep`` passes over what it is not connected for)."""
    from .. import sources
    from ..home.connected import connected

    state = folder() / "catch-up.json"
    last = json_object(state)
    for found in sources.every():
        source = found.name
        if found.offers("hook") and not connected(source):
            continue
        reader = found.reader()
        place = reader.default_path()
        if place is None or not place.exists():
            continue
        try:
            seen = [reader.version, *([str(f), *_stat(f), *(n for end in reader.companions for n in _stat(f"{f}{end}"))]
                                      for f in reader.files(place))]
        except (ConvError, OSError):  # a folder that cannot be listed: nothing to catch up from
            continue
        if len(seen) > 1 and seen != last.get(source) and importing(source):
            last[source] = seen
    write_atomic(state, json.dumps(last))


def unhooked() -> list[str]:
    """The tools whose sessions only the catch-up brings in: no hook, and a place of their own."""
    from .. import sources

    return [found.name for found in sources.every() if not found.offers("hook")
            and found.reader().default_path() is not None]


def _stat(file) -> list[int]:
    try:
        status = os.stat(file)
    except OSError:
        return [-1, -1]
    return [status.st_size, status.st_mtime_ns]
