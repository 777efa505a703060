"""Looking at conversations: ``conv list``, ``conv show``, ``conv clear``."""

from typing import Annotated, Optional

import typer

from .app import app


@app.command("list", epilog="Examples:\n\n  conv list\n\n  conv list -n 10 --json")
def list_(
    limit: Annotated[int, typer.Option("-n", "--limit", min=1, help="How many, newest first.")] = 50,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List conversations, most recently updated first (* marks the current one)."""
    from .. import render
    from ..services import browse

    listing = browse.listing(limit)
    if json_out:
        render.emit_json([item.to_dict() for item in listing])
        return
    if not listing:
        render.notice('no conversations yet; start one with: conv ask "…"')
        return
    render.table(
        ["ID", "TURNS", "UPDATED", "MODEL", "TITLE"],
        [
            [("*" if i.current else " ") + i.short, str(i.row.turns), render.ago(i.row.updated), i.row.model or "-",
             f"[unreadable: {i.row.broken}]" if i.row.broken else i.row.title or "-"]
            for i in listing
        ],
    )


@app.command(epilog="Examples:\n\n  conv show\n\n  conv show k3f9x2 --raw")
def show(
    ref: Annotated[Optional[str], typer.Argument(help="Conversation id, unique prefix or suffix (default: the current one).", show_default=False)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    raw: Annotated[bool, typer.Option("--raw", help="The files exactly as stored.")] = False,
) -> None:
    """Show a conversation: Markdown on a terminal, plain text when piped."""
    from .. import render
    from ..services import browse

    if raw:
        for path, text in browse.raw_files(ref):
            typer.echo(f"==> {path} <==")
            typer.echo(render.clean(text))
        return
    conv = browse.conversation(ref)
    if json_out:
        render.emit_json(conv.to_dict())
        return
    info = f"{conv.id} · {len(conv.turns)} turns · {conv.model or '-'} · updated {render.ago(conv.updated)}"
    sections = [("summary", conv.summary)] if conv.summary else []
    for n, turn in enumerate(conv.turns, 1):
        meta = [turn.role, turn.created[:16].replace("T", " "), turn.model, _finish(turn)]
        sections.append((f"{n}. " + " · ".join(x for x in meta if x), turn.content))
    render.transcript(conv.title or "(untitled)", info, sections)


def _finish(turn) -> str:
    if turn.finish in (None, "stop") and not turn.error:
        return ""
    return f"{turn.finish or 'pending'}" + (f": {turn.error}" if turn.error else "")


@app.command(epilog="Example:\n\n  conv clear")
def clear() -> None:
    """Forget this terminal's current conversation: the next -c starts a new one."""
    from .. import render
    from ..services.current import forget
    from ..services.workspace import Workspace

    forgotten = forget(Workspace())
    render.notice(f"forgot {forgotten}; the next follow-up starts a new conversation" if forgotten else "no current conversation")
