"""The Typer application every command module registers on."""

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


def workspace():
    """The store, index and config for a command (imported only when one runs)."""
    from ..services.workspace import Workspace

    return Workspace()
