"""Signals during the moments that must end cleanly: while an answer streams
or a picker owns the terminal, SIGTERM and SIGHUP end the work as Ctrl-C does
(through the ``finally`` clauses that keep what arrived or restore the
terminal); while a partial answer is saved, no signal may cut that short."""

import signal
from contextlib import contextmanager

from .errors import Interrupted


@contextmanager
def terminal_loss_interrupts():
    def interrupt(signum, frame):
        raise Interrupted(signum)

    with _handled((signal.SIGTERM, signal.SIGHUP), interrupt):
        yield


@contextmanager
def ignoring_interrupts():
    with _handled((signal.SIGINT, signal.SIGTERM, signal.SIGHUP), signal.SIG_IGN):
        yield


@contextmanager
def _handled(signals, handler):
    old = {s: signal.signal(s, handler) for s in signals}
    try:
        yield
    finally:
        for s, previous in old.items():
            signal.signal(s, previous)
