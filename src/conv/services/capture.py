"""Capture: a coding agent's exchange into the store as it happens, through
the hook ``conv connect`` gave the agent, and the catch-up of ``import.auto``.

The hook's side (``hand_over``) never slows or breaks the agent: it reads
what the agent handed it, leaves one small job file in a queue, starts a
worker in the background and returns, printing nothing; whatever goes wrong
is kept to be said later, never raised. The worker (``work``) takes the
queue's jobs under a lock that only workers take (one holds it, the others
leave their jobs to it), and imports each session through ``conv import``'s
own path (services/imports.py), into the conversation a manual import would
make: only the session's new records. What went wrong, or was kept out (a
session holding a key), is said once, by the next conv command a person
runs (``tell``)."""

import json
import os
import time

from ..home.to_say import aside, keep_to_say, log, tell
from ..home.to_say import folder as _dir

TRIES = 5  # a session that failed is tried again by the next workers, this many times in all
QUEUE_MOST = 1_000  # jobs waiting: past this, a hook adds none (the worker is stuck; the catch-up still finds them)
STDIN_MOST = 1_000_000  # bytes of a hook's JSON read


# -- the hook's side: fast, silent, never failing ---------------------------------

def hand_over(source: str, handed: dict) -> None:
    """Queue ``handed`` (what the agent said of the session that changed) for
    the worker, and start it. Never raises: a failure is kept to be said."""
    job = None
    try:
        from ..home.connected import connected

        if not connected(source):
            return  # not connected by this user (a teammate's project settings naming conv): nothing is captured
        job = _job(source, handed)
        if job is None:
            return
        queue = _dir() / "queue"
        queue.mkdir(parents=True, exist_ok=True)
        if sum(1 for _ in zip(range(QUEUE_MOST), os.scandir(queue))) >= QUEUE_MOST:
            return
        name = f"{time.time_ns()}-{os.getpid()}"
        (queue / f".{name}").write_text(json.dumps(job))
        os.replace(queue / f".{name}", queue / f"{name}.json")  # whole or not there
        start_worker([])
    except Exception as exc:  # noqa: BLE001 - the agent must never see conv fail
        session = (job or {}).get("file") or (job or {}).get("thread") or "a session"
        why = f"conv's state folder cannot be written ({exc.strerror})" if isinstance(exc, OSError) else str(exc)
        keep_to_say(f"capturing the {source} session {session} failed: {why}", _again(source, (job or {}).get("file")))
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


def run_their_notify(args: list[str], handed: str) -> None:
    """The user's own Codex notify program, kept beside conv's (``--then``):
    run with Codex's JSON, in the background, as Codex would have run it."""
    from ..connect.codex import user_program

    program = user_program(args)
    if not program:
        return
    import subprocess

    try:
        subprocess.Popen([*program, handed], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError as exc:
        keep_to_say(f"your Codex notify program {program[0]} could not run: {exc.strerror or exc}",
                    "fix it in config.toml, after conv's --then")


def _job(source: str, handed: dict) -> dict | None:
    """The job for what the agent handed over; None when it names no session (said, for Claude Code's)."""
    if source == "claude-code":
        path = handed.get("transcript_path")
        if isinstance(path, str) and path.endswith(".jsonl") and "\0" not in path:
            if not os.path.exists(path):
                return None  # a session that wrote nothing (claude --version, claude mcp list end one too)
            return {"source": source, "file": os.path.abspath(path)}
        keep_to_say(f"Claude Code handed over no session file ({str(path)[:200]!r}): nothing captured",
                    "conv import --from claude-code takes in its sessions folder")
        return None
    thread = handed.get("thread-id")
    if handed.get("type") != "agent-turn-complete" or not isinstance(thread, str) or not _token(thread):
        return None
    return {"source": source, "thread": thread,
            "home": os.path.abspath(os.path.expanduser(os.environ.get("CODEX_HOME") or "~/.codex"))}


def _token(text: str) -> bool:
    return 0 < len(text) <= 100 and all(c.isascii() and (c.isalnum() or c in "-_") for c in text)


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
    """Each session queued, imported once however many hooks queued it."""
    while jobs := _queued():
        sessions: dict = {}  # (source, file or thread, home) -> (the job, its files)
        for job_file in jobs:
            try:
                job = json.loads(job_file.read_text())
                key = (job["source"], job.get("file") or job["thread"], job.get("home"))
            except (OSError, ValueError, KeyError, TypeError):
                key, job = None, None
            first, files = sessions.setdefault(key, (job, []))
            files.append(job_file)
            if job is not None and first is not job:
                first["tries"] = max(_tries(first), _tries(job))
        for key, (job, files) in sessions.items():
            if job is not None and not _capture(ws, job) and _tries(job) + 1 < TRIES:
                _keep_failed(key, {**job, "tries": _tries(job) + 1})
            for job_file in files:
                job_file.unlink(missing_ok=True)


def _tries(job: dict) -> int:
    tries = job.get("tries", 0)
    return tries if isinstance(tries, int) and tries > 0 else 0


def _capture(ws, job: dict) -> bool:
    source, file = job["source"], job.get("file")
    if source != "claude-code":
        file = _rollout(job.get("home"), job["thread"])
        if file is None:
            keep_to_say(f"Codex's session {job['thread']} has no rollout file under {job.get('home')}/sessions: "
                        "not captured", "conv import --from codex takes in what is there")
            return False
    return _import(ws, source, file)


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


def _rollout(home: str, thread: str) -> str | None:
    """Codex's file of ``thread``: sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl, the newest day first."""
    import glob

    found = sorted(glob.glob(os.path.join(glob.escape(home), "sessions", "*", "*", "*",
                                          f"rollout-*-{thread}.jsonl")), reverse=True)
    return found[0] if found else None


def _import(ws, source: str, file: str | None) -> bool:
    """One import, as ``conv import --from SOURCE [FILE]`` makes it (waiting
    for the store's other writers); what it left out, and a failure, kept to be said."""
    from ..errors import ConvError
    from ..importers.files import HALF_WRITTEN
    from .imports import import_from

    what = f"{source} session {file}" if file else f"{source}'s sessions"
    again = _again(source, file)
    try:
        done = import_from(ws, source, file, scan=True)
    except ConvError as exc:
        keep_to_say(f"capturing the {what} failed: {exc.message}", again)
        return False
    except Exception as exc:  # noqa: BLE001 - a bug or a full disk: kept, said; the next hook tries again
        import traceback

        log("".join(traceback.format_exception(exc)))
        keep_to_say(f"capturing the {what} failed: {exc}", again)
        return False
    for conv_id in done.in_trash:
        keep_to_say(f"captured from {source}: it went on in {conv_id}, which is in the trash",
                    f"conv restore {conv_id} brings it back")
    for line in done.skipped:
        if HALF_WRITTEN not in line:  # the agent still writing its last line: the next hook reads it whole
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
