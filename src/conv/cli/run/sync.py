"""Running sync, pull, push and remote purge once their arguments are parsed,
by Typer (cli/sync.py) or the fast path (cli/run/__init__.py). No Typer here."""


def run(name: str | None, pull: bool, send: bool, json_out: bool, rewrite: bool = False) -> None:
    """Sync, pull, push or rewrite a remote, and say what happened."""
    from ...services import sync
    from ...services.workspace import Workspace

    if pull:
        done = sync.sync(Workspace(_notice), name, send=send, rewrite=rewrite)
    else:  # what prints the reply is loaded while git pushes: conv push keeps up with git push
        done = sync.push(Workspace(_notice), name, meanwhile=_ready_to_print)
    from ...terminal import views

    views.emit(done, json_out, views.synced, pull, rewrite)


def _notice(message: str) -> None:
    from ...terminal.render import notice  # loaded when there is something to say

    notice(message)


def _ready_to_print() -> None:
    """What saying how a push went needs, made ready while git pushes: the
    module that prints, and the secrets it masks (conv's config is read for them)."""
    from ...home import secrets
    from ...terminal import render  # noqa: F401

    secrets.gather()
