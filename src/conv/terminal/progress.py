"""A progress bar on stderr for work that takes more than a second: nothing
before that second, nothing when stderr is not a terminal, gone (transient)
when the work ends. rich is imported only when a bar is due."""

import os
import sys
import time

from ..home import progress

DELAY = 1.0  # seconds of work before a bar is worth showing


class Bar:
    """One piece of work's bar, shown once it has taken DELAY seconds."""

    def __init__(self, what: str, total: int):
        self.what, self.total, self.done = what, total, 0
        self.started = time.monotonic()
        self._shown = None  # (rich Progress, task id) once shown

    def advance(self, steps: int = 1) -> None:
        self.done += steps
        if self._shown is not None:
            self._shown[0].update(self._shown[1], completed=self.done)
        elif time.monotonic() - self.started >= DELAY:
            self._show()

    def close(self) -> None:
        if self._shown is not None:
            self._shown[0].stop()

    def _show(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        bar = Progress(TextColumn("conv: {task.description}"), BarColumn(), MofNCompleteColumn(),
                       TimeRemainingColumn(), console=Console(stderr=True), transient=True)
        bar.start()
        self._shown = (bar, bar.add_task(self.what, total=self.total, completed=self.done))


def attach() -> None:
    """Show bars from now on, if stderr is a terminal that can draw them."""
    if sys.stderr.isatty() and os.environ.get("TERM") != "dumb":
        progress.listen(Bar)
