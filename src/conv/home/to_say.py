"""What work done in the background (an agent's capture, the catch-up) has
to say to a person: kept in the state folder, said once by the next conv
command a person runs, and a small log of what the background did. When the
state folder cannot be written (a read-only home, a full disk), what is to be
said goes to a folder of this user's in the system's temporary folder, so
that the failure is said all the same."""

import json
import os
import time

from . import paths

TELL_MOST = 5  # lines said at once; the rest counted
TOLD_FOR = 6 * 3600  # seconds the same line is not said again (a session failing at each answer is said once)
LOG_MOST = 256 * 1024  # the log is cut to its second half past this
WITHDRAWN = "withdrawn"  # an entry that takes back what was kept to be said about the same thing


def folder():
    return paths.state_dir() / "capture"


def checks():
    """Where a hook notes a ``conv connect --check`` payload it was handed (one file per check, by its nonce)."""
    return folder() / "checked"


def aside(made: bool = True):
    """This user's folder in the system's temporary one, for this state folder (made private, never a link).
    Found without tempfile, hashlib or zlib (15 ms of imports on every command's path, where it is looked for):
    the state folder's name as a 32-bit FNV-1a hash."""
    import stat
    from pathlib import Path

    key = 0x811C9DC5
    for byte in str(folder()).encode("utf-8", "surrogateescape"):
        key = ((key ^ byte) * 0x01000193) & 0xFFFFFFFF
    key = f"{key:08x}"
    system = next((os.environ[name] for name in ("TMPDIR", "TEMP", "TMP") if os.environ.get(name)), "/tmp")
    place = Path(system) / f"conv-{os.getuid()}-{key}"
    if not made:
        return place
    try:
        place.mkdir(mode=0o700)
    except FileExistsError:
        found = os.lstat(place)
        if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid():
            raise OSError(f"{place} is not this user's folder") from None
    return place


def keep_to_say(line: str, hint: str, about: str | None = None) -> None:
    """A line for the next conv command a person runs (``about``: what it is
    about, a session, so that ``withdraw`` can take it back)."""
    _keep([line, hint, about] if about else [line, hint])
    log(line)


def withdraw(about: str, after_all: str) -> None:
    """What was kept to be said ``about`` something is no longer so: unsaid,
    it goes; already said, ``after_all`` is said in its place."""
    from .files import json_object

    for place in (folder(), aside(made=False)):
        try:
            pending = (place / "to-say").read_text(errors="replace")
        except OSError:
            pending = ""
        if json.dumps(about) in pending or about in json_object(place / "told-about.json"):
            return _keep([after_all, "", about, WITHDRAWN])


def _keep(entry_list: list) -> None:
    entry = json.dumps(entry_list) + "\n"
    try:
        folder().mkdir(parents=True, exist_ok=True)
        with open(folder() / "to-say", "a") as out:
            out.write(entry)
    except OSError:
        try:
            with open(aside() / "to-say", "a") as out:
                out.write(entry)
        except OSError:
            pass  # nowhere at all to write: the log fails too; the agent is not disturbed


def tell(notice) -> None:
    """Say, once each, what was kept to be said (two stats when there is nothing)."""
    _tell(folder(), notice)
    if os.path.exists(aside(made=False) / "to-say"):
        try:
            _tell(aside(), notice)
        except OSError:
            pass


def _tell(place, notice) -> None:
    to_say = place / "to-say"
    if not os.path.exists(to_say):
        return
    try:
        taken = to_say.with_name(f"to-say.{os.getpid()}")
        os.replace(to_say, taken)  # a capture ending meanwhile starts a new file: said next time
        lines = taken.read_text(errors="replace").splitlines()
        taken.unlink()
    except OSError:
        return
    from .files import json_object, write_atomic

    now = time.time()
    told = {said: at for said, at in json_object(place / "told.json").items()
            if isinstance(at, (int, float)) and now - at < TOLD_FOR}
    told_about = json_object(place / "told-about.json")  # what was said of each thing, to be taken back
    fresh: dict[str, list] = {}  # line -> [hint, about]
    for line in lines:
        try:
            said, hint, *rest = json.loads(line)
        except (ValueError, TypeError):
            continue
        about = rest[0] if rest and isinstance(rest[0], str) else None
        if rest[1:] == [WITHDRAWN]:
            fresh = {kept: value for kept, value in fresh.items() if value[1] != about}
            if told_about.pop(about, None) is not None:
                fresh[said] = ["", None]
        elif said not in told:
            fresh.setdefault(said, [hint, about])
    for said, (hint, about) in list(fresh.items())[:TELL_MOST]:
        notice(f"{said} ({hint})" if hint else said)
        if about:
            told_about[about] = said
    if len(fresh) > TELL_MOST:
        notice(f"and {len(fresh) - TELL_MOST} more from the background: see {folder() / 'log'}")
    try:
        write_atomic(place / "told.json", json.dumps({**told, **dict.fromkeys(fresh, now)}))
        write_atomic(place / "told-about.json", json.dumps(told_about))
    except OSError:
        pass


def log(line: str) -> None:
    where = folder() / "log"
    try:
        if where.stat().st_size > LOG_MOST:
            where.write_bytes(where.read_bytes()[-LOG_MOST // 2:])
    except OSError:
        pass
    try:
        with open(where, "a") as out:
            out.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {line}\n")
    except OSError:
        pass


def last_logged() -> float | None:
    """When the background last did something (``conv connect`` shows it)."""
    try:
        return (folder() / "log").stat().st_mtime
    except OSError:
        return None
