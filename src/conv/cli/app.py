"""The Typer application every command module registers on."""

from typing import Annotated

import typer

app = typer.Typer(
    name="conv",
    help="A git-native store for LLM conversations, driven from the shell.\n\n"
    'Start with: conv ask "explain git rebase", then conv ask -c "what about interactive mode?"',
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,  # a bug keeps a plain traceback; user errors never reach here
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(wanted: bool) -> None:
    if wanted:
        from .. import __version__

        typer.echo(f"conv {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                          help="Print conv's version and exit.")] = False,
) -> None:
    pass


def workspace():
    """The store, index and config for a command (imported only when one runs)."""
    from ..services.workspace import Workspace
    from ..terminal.render import notice

    return Workspace(notice)
