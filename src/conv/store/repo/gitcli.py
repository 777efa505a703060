"""The git CLI, its output captured, or ``FileNotFoundError`` when git is
not installed (the caller then does the work with dulwich).

Started with ``os.posix_spawnp`` and read with ``select.poll``, not through
subprocess: importing subprocess (with locale, selectors and the rest)
cost ``conv push`` 2.5-3 ms, a tenth of what it may add to a bare
``git push``. A caller can go on while git works (``meanwhile``: conv push
imports what prints its reply while git pushes). The commands
here take no input and print little; git's stdin is /dev/null, so a remote
that wants a password fails instead of waiting for one.
"""

import os
import select
import signal

from ...records import dataclass

TYPE_CHECKING = False  # typing's, without importing typing: PEP 781's idiom

if TYPE_CHECKING:
    from collections.abc import Callable

# What subprocess restores for its children: Python ignores SIGPIPE, and an
# ignored signal stays ignored across exec.
_DEFAULT_IN_CHILD = (signal.SIGPIPE, signal.SIGXFSZ)


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def run(*args: str, env: dict[str, str] | None = None, meanwhile: "Callable[[], None] | None" = None) -> Ran:
    """``git ARGS`` run to its end (``env``: its whole environment, default
    conv's); ``meanwhile`` runs once git has started. Both of git's streams
    are read as they come, so neither pipe fills up and stalls it."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        pid = os.posix_spawnp("git", ["git", *args], os.environ if env is None else env, setsigdef=_DEFAULT_IN_CHILD,
                              file_actions=[(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                                            (os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)])
    except OSError:
        for fd in (out_r, err_r):
            os.close(fd)
        raise
    finally:
        os.close(out_w)
        os.close(err_w)
    got: dict[int, list[bytes]] = {out_r: [], err_r: []}
    reaped = False
    try:
        if meanwhile is not None:
            meanwhile()
        poll = select.poll()
        for fd in got:
            poll.register(fd, select.POLLIN)
        reading = set(got)
        while reading:
            for fd, _ in poll.poll():
                chunk = os.read(fd, 65536)
                if chunk:
                    got[fd].append(chunk)
                else:
                    poll.unregister(fd)
                    reading.discard(fd)
        status = os.waitpid(pid, 0)[1]
        reaped = True
    finally:
        os.close(out_r)
        os.close(err_r)
        if not reaped:  # interrupted (Ctrl-C) or failed meanwhile: git is not left running on its own
            os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)
    text = (b"".join(got[fd]).decode("utf-8", "replace") for fd in (out_r, err_r))
    return Ran(os.waitstatus_to_exitcode(status), *text)
