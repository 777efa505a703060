"""Conversations out and in: ``conv export`` and ``conv import``."""

from typing import Annotated, Optional

import typer

from ..format.words import plural
from .app import app, workspace

PANEL = "Import and export"


@app.command(rich_help_panel=PANEL, epilog="Examples:\n\n  conv export k3f9x2 > rebase.md\n\n  conv export --format openai | jq .")
def export(
    ref: Annotated[Optional[str], typer.Argument(help="Conversation (default: the current one).", show_default=False)] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="md, json, or openai (the messages array a chat API takes).")] = "md",
) -> None:
    """Print a conversation as Markdown, JSON or OpenAI chat messages."""
    from ..services.exchange import export as export_conv
    from ..terminal import render

    out = export_conv(workspace(), ref, fmt)
    if isinstance(out, str):
        render.plain(out, end="")
    else:
        render.emit_json(out)


@app.command("import", rich_help_panel=PANEL, epilog="Examples:\n\n  conv import --from llm \"$(llm logs path)\"\n\n"
             "  conv import --from chatgpt ~/Downloads/chatgpt-export.zip\n\n"
             "  conv import --from conv k3f9x2.json       # conv export --format json, files and all\n\n"
             "  conv import --from claude-code           # every Claude Code session in ~/.claude/projects")
def import_(
    path: Annotated[Optional[str], typer.Argument(help="llm's logs.db, a ChatGPT export (conversations.json, its folder or the zip), conv's own JSON export, or Claude Code's sessions (a .jsonl, a project's folder; default ~/.claude/projects).", show_default=False)] = None,
    source: Annotated[str, typer.Option("--from", help="llm, chatgpt, conv or claude-code.")] = ...,
    json_out: Annotated[bool, typer.Option("--json", help="Print what was added as JSON.")] = False,
) -> None:
    """Import conversations from llm, a ChatGPT export, conv's own JSON export or Claude Code (running it again adds only what is new).

    ChatGPT branches other than the one you ended on become forks."""
    from ..services.exchange import import_from
    from ..terminal import render

    done = import_from(workspace(), source, path)
    for line in done.skipped:
        render.notice(line)
    if json_out:
        render.emit_json(done.to_dict())
    else:
        unchanged = f" ({plural(done.unchanged, 'session')} unchanged since the last import)" if done.unchanged else ""
        render.notice(f"{plural(done.conversations, 'conversation')} in {done.path}{unchanged}: {done.added} new, "
                      f"{plural(done.turns, 'turn')} added")
