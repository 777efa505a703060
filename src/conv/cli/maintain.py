"""Store upkeep and moving data in: edit, git, gc, fsck, reindex, import."""

from typing import Annotated, Optional

import typer

from .app import app, workspace

PANEL = "Store"


@app.command(rich_help_panel="Manage", epilog="Examples:\n\n  conv edit\n\n  EDITOR='code -w' conv edit k3f9x2")
def edit(
    ref: Annotated[Optional[str], typer.Argument(help="Conversation (default: the current one).", show_default=False)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print what changed as JSON.")] = False,
) -> None:
    """Edit a conversation as one Markdown file in $EDITOR; changed turns are committed.

    A file that no longer reads is refused with its line number, and nothing is changed."""
    from ..services.editing import edit as edit_conv
    from ..terminal import render

    done = edit_conv(workspace(), ref)
    if json_out:
        render.emit_json(done.to_dict())
    elif done.commit is None:
        render.notice("nothing changed")
    else:
        render.notice(f"{done.conv_id}: {len(done.changed)} turns changed, {len(done.deleted)} deleted"
                      + (", title changed" if done.title is not None else ""))


@app.command(rich_help_panel=PANEL, context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []},
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
        typer.echo(render.clean(line))
    if problems:
        raise typer.Exit(1)
    render.notice("the store is sound")


@app.command(rich_help_panel=PANEL, epilog="Example:\n\n  conv reindex")
def reindex() -> None:
    """Rebuild the search and listing index from git (it is only a cache)."""
    from ..services.maintenance import reindex as rebuild
    from ..terminal import render

    render.notice(f"indexed {rebuild(workspace())} conversations")


hooks_app = typer.Typer(help="The store's git hooks: conv runs pre-commit and post-commit around its commits.",
                        no_args_is_help=True)
app.add_typer(hooks_app, name="hooks", rich_help_panel=PANEL)


@hooks_app.command("install", epilog="Examples:\n\n  conv hooks install              # all that conv ships\n\n  conv hooks install pre-commit")
def hooks_install(names: Annotated[Optional[list[str]], typer.Argument(help="pre-commit (secret scan) or post-commit (backup push).", show_default=False)] = None) -> None:
    """Install the hooks conv ships: pre-commit refuses turns holding API or private keys; post-commit backs up to the remote "backup"."""
    from ..services.maintenance import install_hooks
    from ..terminal import render

    render.notice("installed: " + ", ".join(install_hooks(workspace(), names or [])))


@hooks_app.command("list", epilog="Example:\n\n  conv hooks list")
def hooks_list() -> None:
    """List the store's hooks and the ones conv ships."""
    from ..services.maintenance import installed_hooks, shipped_hooks
    from ..terminal import render

    have = installed_hooks(workspace())
    rows = [[name, have.get(name, "not installed"), about] for name, about in shipped_hooks().items()]
    rows += [[name, kind, ""] for name, kind in have.items() if name not in shipped_hooks()]
    render.table(["HOOK", "STATE", "WHAT"], rows)
