"""How far a long piece of work has got (an index build, an import), for
whoever shows it. The terminal listens when stderr is one
(terminal/progress.py, attached by __main__); with no listener, a step
costs one call that does nothing."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol


class Tracker(Protocol):
    def advance(self, steps: int = 1) -> None: ...

    def close(self) -> None: ...


_listener: Callable[[str, int], Tracker] | None = None


def listen(listener: Callable[[str, int], Tracker] | None) -> None:
    """Have ``listener(what, total)`` make a tracker for each piece of work from now on."""
    global _listener
    _listener = listener


@contextmanager
def steps(what: str, total: int) -> Iterator[Callable[[int], None]]:
    """``advance(n=1)`` for the ``total`` steps of ``what``."""
    tracker = _listener(what, total) if _listener is not None and total else None
    try:
        yield tracker.advance if tracker is not None else _ignore
    finally:
        if tracker is not None:
            tracker.close()


def _ignore(steps: int = 1) -> None:
    pass
