"""How far a long piece of work has got (an index build, an import), for
whoever shows it. The terminal listens when stderr is one
(terminal/progress.py, attached by __main__); with no listener, a step
costs one call that does nothing. Nothing is imported here: __main__ loads
this module on every start, ``conv init`` in a new shell's rc file included."""

_listener = None  # (what, total) -> a tracker with advance(steps=1) and close()


def listen(listener) -> None:
    """Have ``listener(what, total)`` make a tracker for each piece of work from now on."""
    global _listener
    _listener = listener


class steps:
    """``with steps(what, total) as advance:`` then ``advance()`` per step done."""

    def __init__(self, what: str, total: int):
        self._tracker = _listener(what, total) if _listener is not None and total else None

    def __enter__(self):
        return self._tracker.advance if self._tracker is not None else _ignore

    def __exit__(self, *exc) -> None:
        if self._tracker is not None:
            self._tracker.close()


def _ignore(steps: int = 1) -> None:
    pass
