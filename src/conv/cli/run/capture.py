"""``conv capture``: what a coding agent's hook runs (``conv connect`` wrote
it into the agent's settings), and the worker it starts. Run by the fast
path: it must return at once. A hook always exits 0 and prints nothing, so
the agent never waits on conv or shows its words; what went wrong is said
by the next conv command a person runs.

    conv capture claude-code                      the hook's JSON on stdin
    conv capture codex [--then PROGRAM ARGS] JSON  Codex's notify, its JSON last
    conv capture --work [--catch-up]              the worker (started by the two above)"""

import sys

USAGE = "usage: conv capture claude-code | codex [--then PROGRAM ARGS…] JSON   (run by the agents' hooks)"


def run(args: list[str]) -> None:
    from ...services import capture

    if args in (["--help"], ["-h"]):
        return print(USAGE)
    if args[:1] == ["--work"]:
        from ...services.workspace import Workspace

        return capture.work(Workspace(notice=lambda line: None), catch_up=args[1:] == ["--catch-up"])
    if args == ["claude-code"] and not (sys.stdin is not None and sys.stdin.isatty()):
        return capture.hand_over("claude-code", _stdin_json(capture.STDIN_MOST))
    if args[:1] == ["codex"] and len(args) >= 2:
        capture.run_their_notify(args[1:-1], args[-1])
        return capture.hand_over("codex", _json(args[-1]))
    from ...errors import UsageError

    raise UsageError(USAGE.removeprefix("usage: "), "conv connect sets it up; conv connect --help")


def _stdin_json(most: int) -> dict:
    if sys.stdin is None:  # run with stdin closed
        return {}
    try:
        return _json(sys.stdin.buffer.read(most).decode("utf-8", "replace"))
    except OSError:
        return {}


def _json(text: str) -> dict:
    import json

    try:
        found = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return found if isinstance(found, dict) else {}
