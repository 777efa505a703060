"""``conv capture``: what a coding agent's hook runs (``conv connect`` wrote
it into the tool's settings), and the worker it starts. Run by the fast
path: it must return at once. A hook always exits 0 and prints nothing, so
the tool never waits on conv or shows its words; what went wrong is said
by the next conv command a person runs. What each tool hands over is its
own (its hook.py under sources/).

    conv capture TOOL ...             what the tool's hook hands over (JSON on stdin, or Codex's notify
                                      [--then PROGRAM ARGS] JSON, its JSON last); the tools: conv connect --help
    conv capture --work [--catch-up]  the worker (started by the hooks, and the catch-up)"""

import sys

USAGE = "usage: conv capture TOOL [what its hook hands over]   (run by the hooks conv connect writes)"


def run(args: list[str]) -> None:
    from ...services import capture

    if args in (["--help"], ["-h"]):
        return print(USAGE)
    if args[:1] == ["--work"]:
        from ...services.capture_worker import work
        from ...services.workspace import Workspace

        return work(Workspace(notice=lambda line: None), catch_up=args[1:] == ["--catch-up"])
    handed = capture.handed(args[0], args[1:], sys.stdin) if args else None
    if handed is not None:
        return capture.hand_over(args[0], handed)
    from ...errors import UsageError

    raise UsageError(USAGE.removeprefix("usage: "), "conv connect sets it up; conv connect --help")
