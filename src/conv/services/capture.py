"""Capture: a coding agent's exchange into the store as it happens, through
the hook ``conv connect`` gave the tool, and the catch-up of ``import.auto``.

The hook's side (``hand_over``) never slows or breaks the tool: it reads
what the tool handed it (the tool's ``hook.py`` under sources/ knows its
payload), leaves one small job file in a queue, starts a worker in the
background and returns, printing nothing; whatever goes wrong is kept to be
said later, never raised. The worker (``work``) takes the queue's jobs under
a lock that only workers take (one holds it, the others leave their jobs to
it). A tool may write its transcript after its hook ran (Claude Code's TUI
does), so a job waits, boundedly, until the file holds what the hook said
(``settled``) or has stopped changing; then the session is imported through
``conv import``'s own path (services/imports.py), into the conversation a
manual import would make: only the session's new records. A session with
nothing in it yet is no failure; a failure is said once, by the next conv
command a person runs (``tell``), and a later capture of the same session
takes it back."""

import json
import os
import time

from .. import sources
from ..errors import ConvError
from ..home.to_say import aside, keep_to_say, log, tell, withdraw
from ..home.to_say import folder as _dir
from ..sources.source import Unusable

TRIES = 5  # a session that failed is tried again by the next workers, this many times in all
QUEUE_MOST = 1_000  # jobs waiting: past this, a hook adds none (the worker is stuck; the catch-up still finds them)
SETTLE_MOST = 30.0  # seconds a job waits for its session file to hold what the hook said
QUIET = 1.0  # seconds a session file must stay as it is when the hook named no answer to wait for
POLL = 0.2  # seconds between looks at files still being written


# -- the hook's side: fast, silent, never failing ---------------------------------

def handed(name: str, args: list[str], stdin) -> dict | None:
    """What the tool ``name``'s hook handed conv (None: not a hook's arguments)."""
    return sources.named(name, "hook", "conv captures no tool called {name!r}").hook().handed(args, stdin)


def hand_over(name: str, handed: dict) -> None:
    """Queue ``handed`` (what the tool said of the session that changed) for
    the worker, and start it. Never raises: a failure is kept to be said."""
    job = None
    try:
        from ..home.connected import connected

        if not connected(name):
            return  # not connected by this user (a teammate's project settings naming conv): nothing is captured
        found = sources.source(name).hook().job(handed)
        if found is None:
            return
        job = {"source": name, **found, "at": time.time()}
        queue = _dir() / "queue"
        queue.mkdir(parents=True, exist_ok=True)
        if sum(1 for _ in zip(range(QUEUE_MOST), os.scandir(queue))) >= QUEUE_MOST:
            return
        stem = f"{time.time_ns()}-{os.getpid()}"
        (queue / f".{stem}").write_text(json.dumps(job))
        os.replace(queue / f".{stem}", queue / f"{stem}.json")  # whole or not there
        start_worker([])
    except Unusable as exc:
        keep_to_say(exc.message, exc.hint or f"conv import --from {name} takes in its sessions")
    except Exception as exc:  # noqa: BLE001 - the tool must never see conv fail
        session = (job or {}).get("file") or (job or {}).get("thread") or "a session"
        why = f"conv's state folder cannot be written ({exc.strerror})" if isinstance(exc, OSError) else str(exc)
        keep_to_say(f"capturing the {name} session {session} failed: {why}", _again(name, (job or {}).get("file")))
        if job is not None:
            _set_aside(job)


def _set_aside(job: dict) -> None:
    """A job the state folder could not take, kept in the temporary one: the next worker takes it in."""
    try:
        place = aside() / "queue"
        place.mkdir(exist_ok=True)
        (place / f"{time.time_ns()}-{os.getpid()}.json").write_text(json.dumps(job))
    except OSError:
        pass  # nowhere at all: what was said names the import to run


def start_worker(args: list[str]) -> None:
    """``conv capture --work ARGS`` in the background, on its own, its output nowhere."""
    import subprocess
    import sys

    subprocess.Popen([sys.executable, "-m", "conv", "capture", "--work", *args], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)


# -- the worker --------------------------------------------------------------------

def work(ws, catch_up: bool = False) -> None:
    """Import every queued session (and, with ``catch_up``, every tool's
    changed sessions) while holding the workers' lock; a worker that finds it
    held leaves: the holder looks at the queue again after letting it go."""
    import fcntl

    folder = _dir()
    folder.mkdir(parents=True, exist_ok=True)
    while True:
        with open(folder / "lock", "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return
            _retry_failed()
            _drain(ws)
            if catch_up:
                from .catch_up import catch_up as catching_up

                catching_up(lambda source: _import(ws, source, None))
                catch_up = False
        if not _queued():
            return


def _queued() -> list:
    try:
        return sorted(p for p in (_dir() / "queue").iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    except FileNotFoundError:
        return []


def _drain(ws) -> None:
    """Each session queued, imported once however many hooks queued it, when its file has settled."""
    seen: dict = {}  # session -> (its file's size and time, since when), for files that must stay as they are
    while jobs := _queued():
        waiting = False
        for key, (job, files) in _sessions(jobs).items():
            if job is not None:
                hook = sources.source(job["source"]).hook()
                file = hook.session_file(job)
                if not _settled(hook, job, file, seen.setdefault(key, [None, time.monotonic()])):
                    waiting = True
                    continue
                if not _capture(ws, job, file) and _tries(job) + 1 < TRIES:
                    _keep_failed(key, {**job, "tries": _tries(job) + 1})
            for job_file in files:
                job_file.unlink(missing_ok=True)
        if waiting:
            time.sleep(POLL)


def _sessions(jobs: list) -> dict:
    """(source, file or thread, home) -> (the first job, every job file of it)."""
    out: dict = {}
    for job_file in jobs:
        try:
            job = json.loads(job_file.read_text())
            sources.named(job["source"], "hook", "")
            key = (job["source"], job.get("file") or job["thread"], job.get("home"))
        except (OSError, ValueError, KeyError, TypeError, ConvError):
            key, job = None, None
        first, files = out.setdefault(key, (job, []))
        files.append(job_file)
        if job is not None and first is not job:
            first["tries"] = max(_tries(first), _tries(job))
    return out


def _settled(hook, job: dict, file: str | None, seen: list) -> bool:
    """Whether to read the session now: its file holds the answer the hook
    named (or, naming none, has stayed as it is for QUIET), the job is a
    retry, or it has waited SETTLE_MOST."""
    waited = time.time() - job["at"] if isinstance(job.get("at"), (int, float)) else SETTLE_MOST
    if _tries(job) or waited >= SETTLE_MOST:
        return True
    if file is None:
        return False
    if job.get("answer"):
        return hook.settled(job, file)
    try:
        now = [os.stat(file).st_size, os.stat(file).st_mtime_ns]
    except OSError:
        return False
    if now != seen[0]:
        seen[:] = [now, time.monotonic()]
    return time.monotonic() - seen[1] >= QUIET


def _tries(job: dict) -> int:
    tries = job.get("tries", 0)
    return tries if isinstance(tries, int) and tries > 0 else 0


def _capture(ws, job: dict, file: str | None) -> bool:
    """One queued session in; False when it failed (to be tried again)."""
    if file is None:  # a thread the tool never wrote down (Codex's TUI titles its sessions in one)
        log(f"{job['source']} {job.get('thread')}: no session file, nothing to capture")
        return True
    return _import(ws, job["source"], file)


def _keep_failed(key: tuple, job: dict) -> None:
    """A session whose capture failed (a store that could not be written):
    the next worker tries it again (a hook's, or the catch-up's)."""
    import hashlib

    failed = _dir() / "failed"
    try:
        failed.mkdir(parents=True, exist_ok=True)
        (failed / f"{hashlib.sha256(json.dumps(key).encode()).hexdigest()[:20]}.json").write_text(json.dumps(job))
    except OSError:
        pass


def _retry_failed() -> None:
    """Into the queue again: the sessions whose import failed, and those set aside by a hook."""
    import shutil

    for place in (_dir() / "failed", aside(made=False) / "queue"):
        try:
            for job_file in place.iterdir():
                shutil.move(job_file, _dir() / "queue" / f"0-retry-{job_file.name}")  # (/tmp: another file system)
        except OSError:
            pass


def _import(ws, source: str, file: str | None) -> bool:
    """One import, as ``conv import --from SOURCE [FILE]`` makes it (waiting
    for the store's other writers); what it left out, and a failure, kept to be
    said; a session that holds nothing yet is no failure."""
    from ..importers.files import HALF_WRITTEN
    from .imports import NothingFound, import_from

    what = f"{source} session {file}" if file else f"{source}'s sessions"
    again = _again(source, file)
    try:
        done = import_from(ws, source, file, scan=True)
    except NothingFound as exc:
        log(f"{source} {file or '(all)'}: nothing to capture yet ({exc.message})")
        return True
    except ConvError as exc:
        keep_to_say(f"capturing the {what} failed: {exc.message}", again, about=file)
        return False
    except Exception as exc:  # noqa: BLE001 - a bug or a full disk: kept, said; the next hook tries again
        import traceback

        log("".join(traceback.format_exception(exc)))
        keep_to_say(f"capturing the {what} failed: {exc}", again, about=file)
        return False
    if file:
        withdraw(file, f"the {what} is captured after all")
    for conv_id in done.in_trash:
        keep_to_say(f"captured from {source}: it went on in {conv_id}, which is in the trash",
                    f"conv restore {conv_id} brings it back")
    for line in done.skipped:
        if HALF_WRITTEN not in line:  # the tool still writing its last line: the next hook reads it whole
            keep_to_say(f"captured from {source}: {line}", "")  # (a catch-up says it in the same words)
    log(f"{source} {file or '(all)'}: {done.added} new, {done.turns} turns")
    return True


def _again(source: str, file: str | None) -> str:
    """The command that takes a session in by hand (or all of the tool's)."""
    import shlex

    return f"conv import --from {source}" + (f" {shlex.quote(file)}" if file else "") + " takes it in"


def on_command(ws) -> None:
    """As a person's command starts: what the background kept to be said, and the catch-up when it is due."""
    from .catch_up import due

    tell(ws.notice)
    due(ws, lambda: start_worker(["--catch-up"]))
