"""Remotes and moving conversations between machines: remote, push, pull, sync."""

from typing import Annotated, Optional

import typer

from .app import app, workspace
from .run.sync import run

PANEL = "Sync"
remote_app = typer.Typer(help="The store's remotes (ssh, https, git:// or a path). "
                              "Credentials in URLs are never shown.",
                         no_args_is_help=True)
app.add_typer(remote_app, name="remote", rich_help_panel=PANEL)
Remote = Annotated[Optional[str], typer.Argument(help="A remote's name (default: the only one).", show_default=False)]
Json = Annotated[bool, typer.Option("--json", help="Print JSON.")]


@remote_app.command("add", epilog="Examples:\n\n  conv remote add origin git@github.com:me/conversations.git\n\n"
                    "  conv remote add backup /mnt/usb/conversations.git")
def add(name: Annotated[str, typer.Argument(help="A short name, e.g. origin.")],
        url: Annotated[str, typer.Argument(help="ssh, https or git:// URL, or a path to a bare repository.")]) -> None:
    """Add a remote."""
    from ..services.sync import add_remote

    add_remote(workspace(), name, url)


@remote_app.command("remove", epilog="Example:\n\n  conv remote remove backup")
def remove(name: Annotated[str, typer.Argument(help="The remote's name.")]) -> None:
    """Forget a remote (nothing is deleted on it)."""
    from ..services.sync import remove_remote

    remove_remote(workspace(), name)


@remote_app.command("list", epilog="Example:\n\n  conv remote list")
def list_(json_out: Json = False) -> None:
    """List remotes, credentials masked (https://***@host/…)."""
    from ..services.sync import remotes
    from ..terminal import views

    views.emit(remotes(workspace()), json_out, views.remotes, data=views.remotes_data)


@remote_app.command("purge", epilog="Examples:\n\n"
                    "  conv clean --purge --yes     # says which remotes still hold what it erased\n\n"
                    "  conv remote purge origin\n\n  conv remote purge backup --json")
def purge(name: Annotated[str, typer.Argument(help="The remote's name.")], json_out: Json = False) -> None:
    """Erase purged conversations from a remote too: fetch, merge, then replace its history.

    The push is forced only with a lease on the head just fetched, never blindly: a remote that moved meanwhile is fetched and merged again, so nothing pushed there is lost. A remote on a path also loses the objects; a server keeps them until its own gc (clones never get them)."""  # noqa: E501 - Typer's help keeps a docstring's line breaks
    run(name, True, True, json_out, rewrite=True)


@app.command(rich_help_panel=PANEL, epilog="Examples:\n\n  conv sync\n\n  conv sync origin --json")
def sync(remote: Remote = None, json_out: Json = False) -> None:
    """Fetch, merge (no turn is ever lost), push; again until both sides agree. Never forces.

    Conversations purged on another machine are erased here too; a remote that still holds purged ones is pulled from but not pushed to (see conv remote purge)."""  # noqa: E501 - Typer's help keeps a docstring's line breaks
    run(remote, True, True, json_out)


@app.command(rich_help_panel=PANEL, epilog="Examples:\n\n  conv push backup\n\n"
             "  conv push --project           # this project's conversations to its origin, on refs/conv/YOU")
def push(remote: Remote = None, json_out: Json = False,
         project: Annotated[bool, typer.Option("--project", help="Instead: the conversations of the git work tree you "
                                               "are in (conv list --here), onto refs/conv/YOU (your git e-mail) in its "
                                               "repository, met with what REMOTE of the project (default: its "
                                               "origin) holds there (nothing of it lost), as one commit pushed over "
                                               "just that. "
                                               "Teammates: conv import --from project. What would give you "
                                               "away is masked as conv share masks it; the first push shows "
                                               "it and waits for --yes.")] = False,
         preview: Annotated[bool, typer.Option("--preview", help="With --project: list what would be masked "
                                               "(your home, login, host, e-mails, addresses, keys), with samples; "
                                               "push nothing.")] = False,
         yes: Annotated[bool, typer.Option("--yes", help="With --project: push the first time without showing "
                                           "the preview first.")] = False,
         force: Annotated[bool, typer.Option("--force", help="With --project: push a conversation holding a key "
                                             "too, masked (it is held back otherwise).")] = False) -> None:
    """Send this store's conversations to a remote (refused if it has commits this store lacks)."""
    from ..errors import ConvError, UsageError

    if not project:
        if preview or yes or force:
            raise UsageError("--preview, --yes and --force go with --project", "conv push --project --preview")
        return run(remote, False, True, json_out)
    from ..services import projects
    from ..terminal import redactions, views

    ws = workspace()
    if preview or (not yes and projects.first_push(ws)):
        redactions.report(projects.previewed(ws))
        if preview:
            return None
        raise ConvError("this is the first push of this project's conversations: above is what will be masked",
                        "Push them so: conv push --project --yes")
    views.emit(projects.publish(ws, remote, force=force), json_out, views.published)


@app.command(rich_help_panel=PANEL, epilog="Example:\n\n  conv pull origin")
def pull(remote: Remote = None, json_out: Json = False) -> None:
    """Bring a remote's conversations in and merge them."""
    run(remote, True, False, json_out)
