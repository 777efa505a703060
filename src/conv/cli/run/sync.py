"""Running sync, pull, push and remote purge once their arguments are parsed,
by Typer (cli/sync.py) or the fast path (cli/fastpath.py). No Typer here."""


def run(name: str | None, pull: bool, send: bool, json_out: bool, rewrite: bool = False) -> None:
    """Sync, pull, push or rewrite a remote, and say what happened."""
    from ...services.sync import sync as run_sync
    from ...services.workspace import Workspace
    from ...terminal import render

    done = run_sync(Workspace(), name, pull=pull, send=send, rewrite=rewrite)
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
        parts.append(f"{done.remote} still holds purged conversations: conv remote purge {done.remote} erases them there")
    render.notice("; ".join(p for p in parts if p) or f"{done.remote}: up to date")
