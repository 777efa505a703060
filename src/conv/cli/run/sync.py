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
    from ...terminal import render

    if json_out:
        render.emit_json(done.to_dict())
        return
    parts = [f"{done.remote}: pulled ({done.pulled})" if pull else "", "pushed" if done.pushed else ""]
    if done.forks:
        parts.append(f"{done.forks} conversation(s) had grown on both sides: the other line is kept as a fork")
    for old, new in done.moved.items():
        parts.append(f"this machine's line of {old} continues in {new}")
    if done.erased:
        parts.append("purged on another machine, erased here too (with any turns added here): " + " ".join(done.erased))
    if done.rewritten:
        parts.append(f"{done.remote}'s history rewritten without the purged conversations; " + (
            "its unreachable objects are deleted" if done.remote_pruned
            else "the server keeps unreachable objects until its own gc (clones never get them)"))
    elif rewrite:
        parts.append(f"{done.remote} holds no purged conversation")
    if done.holds_purged:
        parts.append(f"{done.remote} still holds purged conversations: "
                     f"conv remote purge {done.remote} erases them there")
    render.notice("; ".join(p for p in parts if p) or f"{done.remote}: up to date")


def _notice(message: str) -> None:
    from ...terminal.render import notice  # loaded when there is something to say

    notice(message)


def _ready_to_print() -> None:
    """What saying how a push went needs, made ready while git pushes: the
    module that prints, and the secrets it masks (conv's config is read for them)."""
    from ...home import secrets
    from ...terminal import render  # noqa: F401

    secrets.gather()
