"""The Typer app with every command registered on it: one module a help panel."""

# Imported in the order --help shows their panels; each module registers its commands.
from . import ask, read, manage, store, exchange, connect, sync, shell  # noqa: F401, I001
from .app import app

__all__ = ["app", "app_for"]


def app_for(args: list[str]):
    """The app as a run with ARGS needs it: with only the command ARGS name
    when they begin with one. Typer turns every registered command into a
    click command before parsing (17 ms for conv's 38, a sixth of a command's
    start); conv --help, an option first or an unknown name get them all."""
    import copy

    from typer.main import get_command_name

    name = args[0] if args else None
    commands = [c for c in app.registered_commands if (c.name or get_command_name(c.callback.__name__)) == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if not (commands or groups):
        return app
    only = copy.copy(app)
    only.registered_commands, only.registered_groups = commands, groups
    return only
