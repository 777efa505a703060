"""Running sync, pull and push once their arguments are parsed, by Typer
(cli/sync.py) or the fast path (cli/fastpath.py). No Typer here."""


def run(name: str | None, pull: bool, send: bool, json_out: bool) -> None:
    """Sync, pull or push, and say what happened."""
    from ...services.sync import sync as run_sync
    from ...services.workspace import Workspace
    from ...terminal import render

    done = run_sync(Workspace(), name, pull=pull, send=send)
    if json_out:
        render.emit_json(done.to_dict())
        return
    parts = [f"{done.remote}: pulled ({done.pulled})" if pull else "", "pushed" if done.pushed else ""]
    if done.forks:
        parts.append(f"{done.forks} conversation(s) had grown on both sides: the other line is kept as a fork")
    for old, new in done.moved.items():
        parts.append(f"this machine's line of {old} continues in {new}")
    render.notice("; ".join(p for p in parts if p) or f"{done.remote}: up to date")
