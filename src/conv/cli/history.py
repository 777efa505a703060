"""A conversation through time: ``conv log`` and ``conv diff``."""

from typing import Annotated, Optional

import typer

from .app import app, workspace

PANEL = "Read"

Json = Annotated[bool, typer.Option("--json", help="Print JSON.")]


@app.command(rich_help_panel=PANEL, epilog="Examples:\n\n  conv log\n\n  conv log k3f9x2 --json")
def log(ref: Annotated[Optional[str], typer.Argument(help="Conversation (default: the current one).", show_default=False)] = None,
        json_out: Json = False) -> None:
    """The history of a conversation: every ask, answer, retry, edit and change, with commit ids for conv diff --rev."""
    from ..services.history import log as history
    from ..terminal import render

    found = history(workspace(), ref)
    if json_out:
        render.emit_json(found.to_dict())
        return
    render.table(["COMMIT", "WHEN", "WHAT"], [[e.sha[:8], render.when(e.time), e.message.splitlines()[0]] for e in found.events])


@app.command(rich_help_panel=PANEL, epilog="Examples:\n\n  conv diff k3f9x2 p8r2m1          # a fork against its parent\n\n"
             "  conv diff k3f9x2                 # the last change (e.g. a retry)\n\n  conv diff k3f9x2 --rev 1a2b3c4d..")
def diff(
    ref_a: Annotated[Optional[str], typer.Argument(metavar="A", help="A conversation (default: the current one).", show_default=False)] = None,
    ref_b: Annotated[Optional[str], typer.Argument(metavar="B", help="A second conversation to compare A with.", show_default=False)] = None,
    rev: Annotated[Optional[str], typer.Option("--rev", metavar="X..Y", help="Two versions of A: commit ids from conv log (Y defaults to now).")] = None,
    json_out: Json = False,
) -> None:
    """Compare two conversations, or two versions of one: the shared start on one line, then turn by turn."""
    from ..errors import UsageError
    from ..services import diffing, history
    from ..terminal import render

    if ref_b and rev:
        raise UsageError("give two conversations or --rev, not both", "e.g. conv diff A B, or conv diff A --rev X..Y")
    ws = workspace()
    result = history.diff_conversations(ws, ref_a, ref_b) if ref_b else history.diff_versions(ws, ref_a, rev)
    if json_out:
        render.emit_json(diffing.to_dict(result))
    elif render.is_terminal():
        render.rich(diffing.rich_renderable(result))
    else:
        typer.echo(diffing.plain(result), nl=False)
