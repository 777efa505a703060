"""Looking at conversations: ``conv list``, ``conv show``, ``conv clear``."""

from typing import Annotated, Optional

import typer

from .app import app, workspace

PANEL = "Read"


Since = Annotated[Optional[str], typer.Option("--since", metavar="AGE|DATE", help="Updated within AGE (7d, 12h) or since DATE (2026-11-01).")]
Agent = Annotated[Optional[str], typer.Option("--agent", help="Only this agent's conversations.")]
Tag = Annotated[Optional[str], typer.Option("--tag", help="Only conversations with this tag.")]
Status = Annotated[Optional[str], typer.Option("--status", help="Only active, paused or done ones.")]
Json = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _filters(agent, tag, since, status, deleted=False):
    from ..format.model import STATUSES
    from ..index import Filters
    from ..services.browse import since as since_time

    if status and status not in STATUSES:
        from ..errors import UsageError

        raise UsageError(f"unknown status {status!r}", "Use one of: " + ", ".join(STATUSES))
    return Filters(agent=agent, tag=tag, since=since_time(since), status=status, trashed=deleted)


@app.command("list", rich_help_panel=PANEL, epilog="Examples:\n\n  conv list\n\n  conv list -n 10 --tag work --since 7d\n\n  conv list --tree --json")
def list_(
    limit: Annotated[int, typer.Option("-n", "--limit", min=1, help="How many, newest first.")] = 50,
    agent: Agent = None,
    tag: Tag = None,
    since: Since = None,
    status: Status = None,
    tree: Annotated[bool, typer.Option("--tree", help="Show forks under the conversations they came from.")] = False,
    deleted: Annotated[bool, typer.Option("--deleted", help="List the trash instead (conv restore REF).")] = False,
    json_out: Json = False,
) -> None:
    """List conversations, most recently updated first (* marks the current one)."""
    from ..services import browse
    from ..terminal import render

    listing = browse.listing(limit, _filters(agent, tag, since, status, deleted), tree)
    if json_out:
        render.emit_json([item.to_dict() for item in listing])
        return
    if not listing:
        render.notice("the trash is empty" if deleted else 'no conversations yet; start one with: conv ask "…"')
        return
    render.table(
        ["ID", "TURNS", "UPDATED", "MODEL", "TOKENS", "COST", "TITLE"],
        [
            [("*" if i.current else " ") + i.short, str(i.row.turns), render.ago(i.row.updated), i.row.model or "-",
             render.count(i.row.tokens), render.dollars(i.row.cost) if i.row.tokens else "-",
             "  " * i.depth + ("└ " if i.depth else "")
             + (f"[unreadable: {i.row.broken}]" if i.row.broken else i.row.title or "-")]
            for i in listing
        ],
    )


@app.command(rich_help_panel=PANEL, epilog='Examples:\n\n  conv search rebase\n\n  conv search "interactive rebase" --tag git -n 5')
def search(
    text: Annotated[list[str], typer.Argument(help="Words that must all appear in one turn.")],
    limit: Annotated[int, typer.Option("-n", "--limit", min=1, help="How many conversations.")] = 20,
    agent: Agent = None,
    tag: Tag = None,
    since: Since = None,
    status: Status = None,
    json_out: Json = False,
) -> None:
    """Search every turn of every conversation (best matches first)."""
    from ..services import browse
    from ..terminal import render

    hits = browse.search(" ".join(text), limit, _filters(agent, tag, since, status))
    if json_out:
        render.emit_json([{"id": h.row.id, "short": short, "title": h.row.title, "turn": h.turn, "role": h.role,
                           "snippet": render.unmark(h.snippet)} for h, short in hits])
        return
    if not hits:
        render.notice(f"nothing matches {' '.join(text)!r}")
        return
    for hit, short in hits:
        render.search_hit(short, render.ago(hit.row.updated), hit.row.title or "-", hit.role, hit.snippet)


@app.command(rich_help_panel=PANEL, epilog="Examples:\n\n  conv show\n\n  conv show k3f9x2 --raw")
def show(
    ref: Annotated[Optional[str], typer.Argument(help="Conversation id, unique prefix or suffix (default: the current one).", show_default=False)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    raw: Annotated[bool, typer.Option("--raw", help="The files exactly as stored.")] = False,
    last: Annotated[Optional[int], typer.Option("--last", metavar="N", min=1, help="Only the last N turns.")] = None,
) -> None:
    """Show a conversation: Markdown on a terminal, plain text when piped."""
    from ..services import browse
    from ..terminal import render

    if raw:
        for path, text in browse.raw_files(ref):
            typer.echo(f"==> {path} <==")
            typer.echo(render.clean(text))
        return
    conv = browse.conversation(ref)
    if json_out:
        from ..format.model import usage_totals

        render.emit_json(conv.to_dict() | {"usage": usage_totals(conv.turns)})
        return
    print_conversation(conv, last)


def print_conversation(conv, last: int | None = None) -> None:
    """A conversation as ``conv show`` prints it (``conv chat``'s /show too)."""
    from ..terminal import render

    first = max(len(conv.turns) - last, 0) if last else 0
    from ..format.model import usage_totals

    used = usage_totals(conv.turns)
    spent = used["prompt_tokens"] + used["completion_tokens"]
    usage = f" · {render.count(spent)} tokens" + (f" · {render.dollars(used['cost'])}" if used["cost"] is not None else "")
    info = (f"{conv.id} · {len(conv.turns)} turns · {conv.model or '-'}{usage if spent else ''}"
            f" · updated {render.ago(conv.updated)}")
    sections = [("summary", conv.summary)] if conv.summary else []
    for n, turn in enumerate(conv.turns[first:], first + 1):
        meta = [turn.role, turn.created[:16].replace("T", " "), turn.model, _finish(turn)]
        sections.append((f"{n}. " + " · ".join(x for x in meta if x), turn.content))
    render.transcript(conv.title or "(untitled)", info, sections)


def _finish(turn) -> str:
    if turn.finish in (None, "stop") and not turn.error:
        return ""
    return f"{turn.finish or 'pending'}" + (f": {turn.error}" if turn.error else "")


@app.command(rich_help_panel="Ask", epilog="Examples:\n\n  conv use k3f9x2\n\n  conv ask -c \"and then?\"     # goes to k3f9x2")
def use(ref: Annotated[str, typer.Argument(help="Conversation id, unique prefix or suffix.")]) -> None:
    """Make a conversation this terminal's current one (what -c and Alt-F continue)."""
    from ..services.current import use as use_conv
    from ..terminal import render

    render.notice(f"this terminal now continues {use_conv(workspace(), ref)}")


@app.command(rich_help_panel="Ask", epilog="Example:\n\n  conv clear")
def clear() -> None:
    """Forget this terminal's current conversation: the next -c starts a new one."""
    from ..services.current import forget
    from ..terminal import render

    forgotten = forget(workspace())
    render.notice(f"forgot {forgotten}; the next follow-up starts a new conversation" if forgotten else "no current conversation")

