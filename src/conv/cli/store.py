"""The Store panel: git, gc, fsck, reindex, hooks and config."""

from typing import Annotated, Optional

import typer

from ..format.words import plural
from .app import app, workspace

PANEL = "Store"


@app.command(rich_help_panel=PANEL,
             context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []},
             epilog="Examples:\n\n  conv git log --stat -5\n\n  conv git remote -v")
def git(ctx: typer.Context) -> None:
    """Run git in the conversation store (as pass git does); its exit code is conv's."""
    from ..services.maintenance import git as run

    raise typer.Exit(run(workspace(), list(ctx.args)))


@app.command(rich_help_panel=PANEL, epilog="Example:\n\n  conv gc")
def gc() -> None:
    """Pack the store: git gc when git is installed (far smaller), dulwich's otherwise."""
    from ..services.maintenance import gc as pack
    from ..terminal import render

    render.notice(f"packed with {pack(workspace())}")


@app.command(rich_help_panel=PANEL, epilog="Example:\n\n  conv fsck")
def fsck() -> None:
    """Check the store's objects (git fsck --strict); exit 1 if anything is wrong."""
    from ..services.maintenance import fsck as check
    from ..terminal import render

    problems = check(workspace())
    for line in problems:
        render.plain(line)
    if problems:
        raise typer.Exit(1)
    render.notice("the store is sound")


@app.command(rich_help_panel=PANEL, epilog="Example:\n\n  conv reindex")
def reindex() -> None:
    """Rebuild the search and listing index from git (it is only a cache)."""
    from ..services.maintenance import reindex as rebuild
    from ..terminal import render

    render.notice(f"indexed {plural(rebuild(workspace()), 'conversation')}")


hooks_app = typer.Typer(help="The store's git hooks: conv runs pre-commit and post-commit around its commits.",
                        no_args_is_help=True)
app.add_typer(hooks_app, name="hooks", rich_help_panel=PANEL)


@hooks_app.command("install", epilog="Examples:\n\n  conv hooks install              # all that conv ships\n\n"
                   "  conv hooks install pre-commit")
def hooks_install(names: Annotated[Optional[list[str]], typer.Argument(
        help="pre-commit (secret scan) or post-commit (backup push).", show_default=False)] = None) -> None:
    """Install the hooks conv ships: pre-commit refuses turns holding API or private keys; post-commit backs up to the remote "backup"."""  # noqa: E501 - Typer's help keeps a docstring's line breaks
    from ..services.maintenance import install_hooks
    from ..terminal import render

    render.notice("installed: " + ", ".join(install_hooks(workspace(), names or [])))


@hooks_app.command("list", epilog="Example:\n\n  conv hooks list")
def hooks_list() -> None:
    """List the store's hooks and the ones conv ships."""
    from ..services.maintenance import installed_hooks, shipped_hooks
    from ..terminal import render

    ws = workspace()
    have, ours = installed_hooks(ws), shipped_hooks(ws)
    rows = [[name, have.get(name, "not installed"), about] for name, about in ours.items()]
    rows += [[name, kind, ""] for name, kind in have.items() if name not in ours]
    render.table(["HOOK", "STATE", "WHAT"], rows)


config_app = typer.Typer(
    help="Read and change settings (a YAML file; comments you write survive).",
    no_args_is_help=True,
)
app.add_typer(config_app, name="config", rich_help_panel=PANEL)


@config_app.command("get", epilog="Examples:\n\n  conv config get\n\n  conv config get session.expiry")
def get(key: Annotated[Optional[str], typer.Argument(help="A key; all keys when left out.",
                                                     show_default=False)] = None) -> None:
    """Print a setting (or every setting with its meaning)."""
    from ..errors import ConvError
    from ..home.config import Config
    from ..home.keys import KEYS, PATTERNS
    from ..terminal import render

    config = Config(notice=render.notice)
    if key:
        value = config.raw(key) if key in KEYS and config.raw(key) is not None else config.get(key)
        render.plain("" if value is None else str(value))
        return
    try:
        config.values  # noqa: B018 - checks the file: what is wrong in it is said, and the listing goes on
    except ConvError as exc:
        render.notice(str(exc))
    for name, spec in KEYS.items():
        value = config.raw(name)
        shown = value if value is not None else (f"{spec.default} (default)" if spec.default is not None else "(unset)")
        render.wrapped(f"{name} = {shown}    # {spec.help}", hang=4)
    for pattern, spec in PATTERNS.items():  # agents.NAME.…, prices.MODEL.…, aliases.NAME, as configured
        section, _, field = pattern.removesuffix(".*").partition(".*.")
        for name in config.names(section):
            if config.raw(key := f"{section}.{name}" + (f".{field}" if field else "")) is not None:
                render.wrapped(f"{key} = {config.raw(key)}    # {spec.help}", hang=4)


@config_app.command("set", epilog="Examples:\n\n  conv config set model gpt-4o\n\n  conv config set session.expiry 8h")
def set_(
    key: Annotated[str, typer.Argument(help="The key, e.g. model or session.expiry.")],
    value: Annotated[str, typer.Argument(help="The new value.")],
) -> None:
    """Change a setting."""
    from ..home.config import Config

    Config().set(key, value)


@config_app.command("unset", epilog="Examples:\n\n  conv config unset model\n\n"
                    "  conv config unset timeout.raed   # a typo "
                    "conv warned about")
def unset(key: Annotated[str, typer.Argument(
        help="The key, e.g. model, or one conv warned it does not know.")]) -> None:
    """Remove a setting (it goes back to its default)."""
    from ..home.config import Config
    from ..terminal import render

    config = Config()
    if not config.unset(key):
        render.notice(f"{key} was not set in {config.path}")


@config_app.command("path", epilog="Example:\n\n  $EDITOR \"$(conv config path)\"")
def path() -> None:
    """Print where the config file lives."""
    from ..home.paths import config_file
    from ..terminal import render

    render.plain(str(config_file()))
