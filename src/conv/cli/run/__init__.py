"""Running commands without Typer.

Each module here runs one command once its arguments are parsed, by Typer
(the panels in cli/) or by the fast path below, which parses the commands a
key binding, a prompt or an agent's hook runs (ask, cmd, init, prompt, sync, pull, push,
search, stats, capture, mcp) itself:
importing Typer alone costs about 40 ms of a follow-up's budget. Nothing in
this package imports Typer (tests/test_architecture.py checks)."""

import sys


def fast_path(args: list[str]) -> bool:
    """Run the commands that must start fast; False if ``args`` is not one of them."""
    if len(args) == 2 and args[0] == "init" and not args[1].startswith("-"):
        from .shell import plugin

        sys.stdout.write(plugin(args[1]))
        return True
    if args == ["--version"]:
        from ... import __version__

        sys.stdout.write(f"conv {__version__}\n")
        return True
    if args[:1] == ["__complete"]:  # TAB in a shell with the plugin
        from .complete import run

        run(args[1:])
        return True
    if args == ["prompt"]:
        from .shell import segment

        sys.stdout.write(segment() + "\n")
        return True
    if args[:1] in (["sync"], ["pull"], ["push"]):
        from .argv import parse_sync

        parsed = parse_sync(args[1:])
        if parsed is not None:
            from .sync import run

            run(parsed[0], pull=args[0] != "push", send=args[0] != "pull", json_out=parsed[1])
            return True
    if args[:1] == ["ask"]:
        from .argv import parse_ask

        command = parse_ask(args[1:])
        if command is not None:
            from .ask import run

            run(command)
            return True
    if args[:1] == ["stats"]:
        from .argv import parse_stats

        given = parse_stats(args[1:])
        if given is not None:
            from .stats import run as stats

            stats(given)
            return True
    if args[:1] == ["search"]:
        from .argv import parse_search

        given = parse_search(args[1:])
        if given is not None:
            from .search import run as search

            search(given)
            return True
    if args == ["mcp"]:  # started by an agent: its first answer within 0.3 s
        from .mcp import run as serve

        serve()
        return True
    if args[:1] == ["capture"]:  # a coding agent's hook: returns at once
        from .capture import run as capture

        capture(args[1:])
        return True
    if args[:1] == ["cmd"]:
        from .argv import parse_command

        request = parse_command(args[1:])
        if request is not None:
            from .command import run as suggest

            suggest(request)
            return True
    return False
