"""``conv config``: read and change settings; comments in the file survive."""

from typing import Annotated, Optional

import typer

from .app import app

config_app = typer.Typer(
    help="Read and change settings (a YAML file; comments you write survive).",
    no_args_is_help=True,
)
app.add_typer(config_app, name="config", rich_help_panel="Store")


@config_app.command("get", epilog="Examples:\n\n  conv config get\n\n  conv config get session.expiry")
def get(key: Annotated[Optional[str], typer.Argument(help="A key; all keys when left out.", show_default=False)] = None) -> None:
    """Print a setting (or every setting with its meaning)."""
    from ..home.config import KEYS, PATTERNS, Config

    config = Config()
    if key:
        value = config.raw(key) if key in KEYS and config.raw(key) is not None else config.get(key)
        typer.echo("" if value is None else value)
        return
    for name, spec in KEYS.items():
        value = config.raw(name)
        shown = value if value is not None else (f"{spec.default} (default)" if spec.default is not None else "(unset)")
        typer.echo(f"{name} = {shown}    # {spec.help}")
    for pattern, spec in PATTERNS.items():  # agents.NAME.… and prices.MODEL.…, as configured
        section, _, field = pattern.partition(".*.")
        for name in config.names(section):
            if config.raw(key := f"{section}.{name}.{field}") is not None:
                typer.echo(f"{key} = {config.raw(key)}    # {spec.help}")


@config_app.command("set", epilog="Examples:\n\n  conv config set model gpt-4o\n\n  conv config set session.expiry 8h")
def set_(
    key: Annotated[str, typer.Argument(help="The key, e.g. model or session.expiry.")],
    value: Annotated[str, typer.Argument(help="The new value.")],
) -> None:
    """Change a setting."""
    from ..home.config import Config

    Config().set(key, value)


@config_app.command("path", epilog="Example:\n\n  $EDITOR \"$(conv config path)\"")
def path() -> None:
    """Print where the config file lives."""
    from ..home.paths import config_file

    typer.echo(config_file())
