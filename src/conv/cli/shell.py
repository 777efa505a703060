"""The Shell panel: ``conv init SHELL`` and ``conv prompt``, here for --help;
the fast path runs both without Typer (run/shell.py)."""

from typing import Annotated

import typer

from .app import app


@app.command(rich_help_panel="Shell", epilog='Examples:\n\n  eval "$(conv init zsh)"      # in ~/.zshrc\n\n'
             '  eval "$(conv init bash)"     # in ~/.bashrc\n\n'
             '  conv init fish | source       # in ~/.config/fish/config.fish')
def init(shell: Annotated[str, typer.Argument(help="zsh, bash or fish.")]) -> None:
    """Print the shell plugin: Alt-F follow-ups, Alt-N new conversations, a prompt segment."""
    from .run.shell import plugin

    typer.echo(plugin(shell), nl=False)


@app.command(rich_help_panel="Shell",
             epilog="Example:\n\n  PS1='$(conv prompt) $ '     # custom prompts; the plugins need no process")
def prompt() -> None:
    """Print this terminal's prompt segment (conv:ID·TURNS), or nothing."""
    from .run.shell import segment

    typer.echo(segment())
