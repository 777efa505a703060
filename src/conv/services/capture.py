"""Capture: a coding agent's exchange into the store as it happens, through
the hook ``conv connect`` gave the tool. This is the hook's side: it never
slows or breaks the tool. It reads what the tool handed it (the tool's
``hook.py`` under sources/ knows its payload), leaves one small job file in a
queue, starts a worker in the background (capture_worker.py) and returns,
printing nothing; whatever goes wrong is kept to be said later, never raised.
What the background kept to be said is said by the next conv command a
person runs (catch_up.on_command); ``backlog`` is what is still to do, for
``conv connect``."""

import json
import os
import time

from .. import sources
from ..home.to_say import aside, keep_to_say
from ..home.to_say import folder as _dir
from ..records import dataclass
from ..sources.hooks import Unusable

QUEUE_MOST = 1_000  # jobs waiting: past this, a hook adds none (the worker is stuck; the catch-up still finds them)


def handed(name: str, args: list[str], stdin) -> dict | None:
    """What the tool ``name``'s hook handed conv (None: not a hook's arguments)."""
    return sources.named(name, "hook", "conv captures no tool called {name!r}").hook().handed(args, stdin)


def hand_over(name: str, handed: dict) -> None:
    """Queue ``handed`` (what the tool said of the session that changed) for
    the worker, and start it. Never raises: a failure is kept to be said."""
    job = None
    try:
        from ..home.connected import connected, covers

        if not connected(name):
            return  # not connected by this user (a teammate's project settings naming conv): nothing is captured
        if _checking(name, handed):
            return
        found = sources.source(name).hook().job(handed)
        if found is None or not covers(name, found.get("cwd")):
            return  # no session, or one of a project this tool is not connected for
        job = {"source": name, **found, "at": time.time()}
        queue = _dir() / "queue"
        queue.mkdir(parents=True, exist_ok=True)
        if sum(1 for _ in zip(range(QUEUE_MOST), os.scandir(queue))) >= QUEUE_MOST:
            return
        stem = f"{time.time_ns()}-{os.getpid()}"
        (queue / f".{stem}").write_text(json.dumps(job))
        os.replace(queue / f".{stem}", queue / f"{stem}.json")  # whole or not there
        wake_worker()
    except Unusable as exc:
        keep_to_say(exc.message, exc.hint or f"conv import --from {name} takes in its sessions")
    except Exception as exc:  # noqa: BLE001 - the tool must never see conv fail
        session = (job or {}).get("file") or (job or {}).get("thread") or "a session"
        why = f"conv's state folder cannot be written ({exc.strerror})" if isinstance(exc, OSError) else str(exc)
        keep_to_say(f"capturing the {name} session {session} failed: {why}", again(name, (job or {}).get("file")))
        if job is not None:
            _set_aside(job)


def _checking(name: str, handed: dict) -> bool:
    """Whether ``handed`` is ``conv connect --check``'s payload (connect/check.py): then noted by its nonce for
    the check to find, and nothing captured."""
    from ..home.connected import covers
    from ..home.to_say import checks

    nonce = handed.get("conv_check")
    if not (isinstance(nonce, str) and len(nonce) == 16 and all(c in "0123456789abcdef" for c in nonce)):
        return False
    if covers(name, handed.get("cwd")):  # as a capture goes on: connected for where it ran
        checks().mkdir(parents=True, exist_ok=True)
        (checks() / nonce).touch()
    return True


def _set_aside(job: dict) -> None:
    """A job the state folder could not take, kept in the temporary one: the next worker takes it in."""
    try:
        place = aside() / "queue"
        place.mkdir(exist_ok=True)
        (place / f"{time.time_ns()}-{os.getpid()}.json").write_text(json.dumps(job))
    except OSError:
        pass  # nowhere at all: what was said names the import to run


def worker_running() -> bool:
    """Whether a worker holds the workers' lock (capture_worker.work): thirty hooks at once then start no
    thirty workers, each a Python start fighting the hooks for the cores (the slowest hook took 4 times a
    bare start)."""
    import fcntl

    try:
        with open(_dir() / "lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(lock, fcntl.LOCK_UN)
    except BlockingIOError:
        return True
    except OSError:
        return False
    return False


def wake_worker() -> None:
    """A worker started for what is queued, unless one holds the lock (it looks at the queue again before it
    ends) or a hook has just started one."""
    if not worker_running() and _first_to_start():
        start_worker([])


STARTING = "starting"  # a hook's mark that it has started a worker, taken away by the worker once it holds the lock
STARTING_FRESH = 10.0  # seconds a worker so started is taken to be on its way to the lock


def _first_to_start() -> bool:
    """Whether no other hook started a worker a moment ago (thirty hooks at once, before the first worker holds
    the lock, started a worker each: thirty Python starts fighting the hooks for the cores). A mark older than
    STARTING_FRESH is of a worker that never got there, and one that is no file of conv's (a folder, a dangling
    link) is none: a worker is started all the same."""
    mark = _dir() / STARTING
    try:
        os.close(os.open(mark, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600))
        return True
    except FileExistsError:
        pass
    try:
        found = os.lstat(mark)
    except FileNotFoundError:  # taken away meanwhile: a worker holds the lock, and will look at the queue
        return False
    if found.st_mode & 0o170000 == 0o100000 and time.time() - found.st_mtime < STARTING_FRESH:
        return False
    remove_mark(mark)
    return True


def remove_mark(mark) -> None:
    """``mark`` gone, whatever it is; one conv cannot take away is left (the hooks see its age)."""
    try:
        os.unlink(mark)
    except IsADirectoryError:
        try:
            os.rmdir(mark)
        except OSError:
            pass
    except OSError:
        pass


def start_worker(args: list[str]) -> None:
    """``conv capture --work ARGS`` in the background, in a session of its own, reading and writing nowhere
    and holding none of the hook's files (an agent waits on its hook's pipes until every holder is gone).
    posix_spawn, not subprocess: that import is 5 ms of a hook's 36 ms of CPU, thirty times over when
    thirty hooks run at once."""
    import sys

    for fd in _open_fds():  # what the agent left inheritable beyond 0-2
        try:
            os.set_inheritable(fd, False)
        except OSError:  # the listing's own, closed since
            pass
    nowhere = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    os.posix_spawn(sys.executable, [sys.executable, "-m", "conv", "capture", "--work", *args], os.environ,
                   file_actions=nowhere, setsid=True)


def _open_fds() -> list[int]:
    for listing in ("/proc/self/fd", "/dev/fd"):
        try:
            return [int(name) for name in os.listdir(listing) if int(name) > 2]
        except OSError:
            continue
    return list(range(3, 256))


def queued() -> list:
    try:
        return sorted(p for p in (_dir() / "queue").iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    except FileNotFoundError:
        return []


def tries(job: dict) -> int:
    tries = job.get("tries", 0)
    return tries if isinstance(tries, int) and tries > 0 else 0


def again(source: str, file: str | None) -> str:
    """The command that takes a session in by hand (or all of the tool's)."""
    import shlex

    return f"conv import --from {source}" + (f" {shlex.quote(file)}" if file else "") + " takes it in"


@dataclass
class Backlog:
    """What the capture has not done yet: jobs queued, sessions whose capture failed (to be tried again), and jobs
    a hook set aside in the temporary folder."""

    queued: int
    failed: list  # {"source", "session", "tries"} each
    aside: int

    def to_dict(self) -> dict:
        return {"queued": self.queued, "failed": self.failed, "aside": self.aside}


def backlog() -> Backlog:
    failed = []
    for job_file in _listed(_dir() / "failed"):
        try:
            job = json.loads(job_file.read_text())
            failed.append({"source": job["source"], "session": job.get("file") or job["thread"],
                           "tries": tries(job)})
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return Backlog(len(queued()), failed, len(_listed(aside(made=False) / "queue")))


def _listed(folder) -> list:
    try:
        return [p for p in folder.iterdir() if p.suffix == ".json"]
    except OSError:
        return []
