"""``conv resume``: find a conversation by what it was about and continue it
in this terminal."""

from typing import Annotated, Optional

import typer

from .app import app, workspace


@app.command(rich_help_panel="Ask", epilog='Examples:\n\n  conv resume                 # pick from the latest conversations\n\n'
             '  conv resume rebase          # the one conversation about rebase, or a picker\n\n'
             '  conv resume gt rbs          # fuzzy: like fzf, letters in order\n\n  conv ask -c "and then?"     # follows up the one chosen')
def resume(
    text: Annotated[Optional[list[str]], typer.Argument(metavar="TEXT", help="Words from its title, first question or last turn (fuzzy).", show_default=False)] = None,
) -> None:
    """Pick a conversation by its title or text and make it this terminal's current one.

    With TEXT that clearly names one conversation (the only one whose title
    holds the words, else the only one whose text does, else the only fuzzy
    match), it is chosen at once; otherwise a picker opens with TEXT typed in:
    type to filter, Up/Down to move, Enter to choose, Esc to cancel (exit 1)."""
    from ..services import resume as resuming
    from ..terminal import picker, render

    query = " ".join(text or [])
    ws = workspace()
    found = resuming.candidates(ws)
    ranked = resuming.rank(query, found)
    chosen = resuming.clear_choice(ranked) if query else None
    if chosen is None:
        if not picker.available():
            raise resuming.unresolved(query, ranked)
        chosen = picker.pick(found, query)
    if chosen is None:
        render.notice("nothing chosen")
        raise typer.Exit(1)
    resuming.choose(ws, chosen)
    render.notice(f'this terminal now continues {chosen.short} "{chosen.title or "(untitled)"}"; follow up with: conv ask -c "…"')
