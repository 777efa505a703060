"""``conv connect``: the coding agents that hand each exchange to conv as it happens."""

from typing import Annotated, Optional

import typer

from .app import app, workspace
from .exchange import PANEL


@app.command(rich_help_panel=PANEL,
             epilog="Examples:\n\n  conv connect                      # what is connected, what could be\n\n"
             "  conv connect claude-code          # its hooks in ~/.claude/settings.json\n\n"
             "  conv connect codex                # its notify in ~/.codex/config.toml\n\n"
             "  conv connect all --remove         # the settings as they were")
def connect(
    agent: Annotated[Optional[str], typer.Argument(help="claude-code, codex, or all (none: show what is connected).",
                                                   show_default=False)] = None,
    remove: Annotated[bool, typer.Option("--remove", help="Take conv's hook out again: the settings file as it "
                                                          "was, if nothing else changed it since.")] = False,
    project: Annotated[bool, typer.Option("--project", help="Only in the git project you are in (Claude Code's "
                                                            ".claude/settings.local.json), not user-wide.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Have coding agents hand each exchange to conv as it happens: Claude Code through its hooks,
    Codex through its notify program. Your own settings, hooks and comments are kept."""
    from ..errors import UsageError
    from ..services import connections
    from ..terminal import connections as view
    from ..terminal import views

    ws = workspace()
    if agent is None:
        if remove or project:
            raise UsageError("--remove and --project go with an agent", "e.g. conv connect claude-code --remove")
        return views.emit(connections.state(ws), json_out, view.connected)
    done = connections.change(ws, agent, remove, project)
    views.emit(done, json_out, view.changed)
    if any(c.done == "refused" for c in done.changes):
        raise typer.Exit(1)
