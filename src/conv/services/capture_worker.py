"""The capture's worker (``conv capture --work``, started by a hook or by
the catch-up): it takes the queue's jobs under a lock that only workers take
(one holds it, the others leave their jobs to it). A tool may write its
transcript after its hook ran (Claude Code's TUI does), so a job waits,
boundedly, until the file holds what the hook said (the tool's ``settled``)
or has stopped changing; then the session is imported through ``conv
import``'s own path (services/imports.py), into the conversation a manual
import would make: only the session's new records, none worked on in a
folder of ``capture.never``, nor, for a tool connected for projects alone,
outside them. A session with nothing in it yet is no failure; a failure is
said once by the next command, tried again by the next workers, and taken
back when a later capture of the same session succeeds."""

import json
import os
import time

from .. import sources
from ..errors import ConvError
from ..home.to_say import aside, keep_to_say, log, withdraw
from ..home.to_say import folder as _dir
from .capture import STARTING, again, queued, remove_mark, tries

TRIES = 5  # a session that failed is tried again by the next workers, this many times in all
SETTLE_MOST = 30.0  # seconds a job waits for its session file to hold what the hook said
NO_FILE_MOST = 5.0  # seconds it waits for a session file that is not there at all
QUIET = 1.0  # seconds a session file must stay as it is when the hook named no answer to wait for
POLL = 0.2  # seconds between looks at files still being written
WANTED = "catch-up.wanted"  # a catch-up asked for, done by whichever worker holds the lock
CATCH_UPS_MOST = 2  # by one worker: a mark that cannot be taken away is not done over and over


def work(ws, catch_up: bool = False) -> None:
    """Import every queued session (and, with ``catch_up``, every tool's
    changed sessions) while holding the workers' lock; a worker that finds it
    held leaves: the holder looks at the queue again after letting it go, and
    at the catch-up asked for meanwhile (its mark, WANTED: a catch-up asked of
    a worker that found the lock held was lost for a minute)."""
    import fcntl

    folder = _dir()
    folder.mkdir(parents=True, exist_ok=True)
    wanted = folder / WANTED
    if catch_up:
        try:
            wanted.touch()
        except OSError:  # (a folder there, one that cannot be written: this worker's own catch-up all the same)
            pass
    caught_up = 0
    while True:
        with open(folder / "lock", "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return
            remove_mark(folder / STARTING)  # here: the hooks may start another when it is gone
            _retry_failed()
            more = caught_up < CATCH_UPS_MOST
            _drain(ws, wanted if more else None)
            if more and (catch_up or os.path.lexists(wanted)):
                from .catch_up import catch_up as catching_up

                catch_up, caught_up = False, caught_up + 1
                remove_mark(wanted)
                catching_up(lambda source: _import(ws, source, None, _keep(source)))
        if not queued() and not (caught_up < CATCH_UPS_MOST and os.path.lexists(wanted)):
            return


def _drain(ws, wanted) -> None:
    """Each session queued, imported once however many hooks queued it, when its file has settled; a catch-up
    asked for (``wanted``; None: no more) while one waits for its file goes first (it waited up to 30 s)."""
    seen: dict = {}  # session -> (its file's size and time, since when), for files that must stay as they are
    while jobs := queued():
        waiting = False
        for key, (job, files) in _sessions(jobs).items():
            if job is not None:
                hook = sources.source(job["source"]).hook()
                file = hook.session_file(job)
                if not _settled(hook, job, file, seen.setdefault(key, [None, time.monotonic()])):
                    waiting = True
                    continue
                if not _capture(ws, job, file) and tries(job) + 1 < TRIES:
                    _keep_failed(key, {**job, "tries": tries(job) + 1})
            for job_file in files:
                job_file.unlink(missing_ok=True)
        if waiting:
            if wanted is not None and os.path.lexists(wanted):
                return
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
            first["tries"] = max(tries(first), tries(job))
    return out


def _settled(hook, job: dict, file: str | None, seen: list) -> bool:
    """Whether to read the session now: its file holds the answer the hook
    named (or, naming none, has stayed as it is for QUIET), the job is a
    retry, or it has waited SETTLE_MOST."""
    waited = time.time() - job["at"] if isinstance(job.get("at"), (int, float)) else SETTLE_MOST
    if tries(job) or waited >= SETTLE_MOST:
        return True
    if file is None:
        return waited >= NO_FILE_MOST  # a thread the tool never writes down (Codex's TUI titles): not long
    if job.get("answer"):
        return hook.settled(job, file)
    try:
        now = [os.stat(file).st_size, os.stat(file).st_mtime_ns]
    except OSError:
        return False
    if now != seen[0]:
        seen[:] = [now, time.monotonic()]
    return time.monotonic() - seen[1] >= QUIET


def _capture(ws, job: dict, file: str | None) -> bool:
    """One queued session in; False when it failed (to be tried again)."""
    if file is None:  # a thread the tool never wrote down (Codex's TUI titles its sessions in one)
        log(f"{job['source']} {job.get('thread')}: no session file, nothing to capture")
        return True
    return _import(ws, job["source"], file, _keep(job["source"]))


def _keep(source: str):
    """Which conversations of ``source`` to take: of a tool connected for projects alone, theirs (what
    capture.never keeps out, import_from leaves out for every capture)."""
    from ..home.connected import covers

    if not sources.source(source).offers("hook"):
        return None
    return lambda conversation: covers(source, conversation.origin.get("cwd"))


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


def _import(ws, source: str, file: str | None, keep=None) -> bool:
    """One import, as ``conv import --from SOURCE [FILE]`` makes it (waiting
    for the store's other writers); what it left out, and a failure, kept to be
    said; a session that holds nothing yet is no failure."""
    from ..importers.files import HALF_WRITTEN
    from .imports import NothingFound, import_from

    what = f"{source} session {file}" if file else f"{source}'s sessions"
    by_hand = again(source, file)
    try:
        done = import_from(ws, source, file, scan=True, keep=keep)
    except NothingFound as exc:
        log(f"{source} {file or '(all)'}: nothing to capture yet ({exc.message})")
        return True
    except ConvError as exc:
        keep_to_say(f"capturing the {what} failed: {exc.message}", by_hand, about=file)
        return False
    except Exception as exc:  # noqa: BLE001 - a bug or a full disk: kept, said; the next hook tries again
        import traceback

        log("".join(traceback.format_exception(exc)))
        keep_to_say(f"capturing the {what} failed: {exc}", by_hand, about=file)
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
