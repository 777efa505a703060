"""The Typer application every command module registers on."""

from typing import Annotated

import typer
import typer.core

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


class PairsCommand(typer.core.TyperCommand):
    """A command whose ``option`` (``-o KEY VALUE``), declared a repeatable
    str, takes two values each time: Typer declares no list of pairs, and
    click takes one as it is."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for param in self.params:
            if param.name == "option":
                param.nargs = 2


OPTION_HELP = ("A model option, e.g. -o temperature 0.2; repeatable. Known: temperature, top_p, seed, max_tokens, "
               "stop, reasoning_effort (each provider takes some). Kept with the answer.")


def workspace():
    """The store, index and config for a command (imported only when one runs)."""
    from .run.workspace import workspace as opened

    return opened()
