"""Conversations out and in: ``conv export`` and ``conv import``."""

from typing import Annotated, Optional

import typer

from ..format.words import plural
from ..services import tools
from .app import app, workspace

PANEL = "Import and export"


@app.command(rich_help_panel=PANEL, epilog="Examples:\n\n  conv export k3f9x2 > rebase.md\n\n"
             "  conv export --format openai | jq .\n\n"
             "  conv export --all -o notes/              # every conversation, a Markdown file each\n\n"
             "  conv export --all --here --format sharegpt -o project.jsonl")
def export(
    ref: Annotated[Optional[str], typer.Argument(help="Conversation (default: the current one).",
                                                 show_default=False)] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="md, json, openai (the messages array a chat API takes) "
                                                            "or sharegpt.")] = "md",
    everything: Annotated[bool, typer.Option(
        "--all", help="Every conversation (or those --tag, --since, --here keep): Markdown files into the folder -o; "
                      "json as one list; openai and sharegpt as JSONL, one a line.")] = False,
    tag: Annotated[Optional[str], typer.Option("--tag", help="With --all: only those with this tag.")] = None,
    since: Annotated[Optional[str], typer.Option("--since", metavar="AGE|DATE",
                                                 help="With --all: updated within AGE (7d) or since DATE.")] = None,
    here: Annotated[bool, typer.Option("--here", help="With --all: only this git project's.")] = False,
    output: Annotated[Optional[str], typer.Option(
        "-o", "--output", help="With --all: the folder (md) or the file to write, or a folder to write "
                               "conversations.json(l) in (default: stdout).")] = None,
    preview: Annotated[bool, typer.Option("--preview", help="List what would be masked, with samples before "
                                                            "and after; write nothing.")] = False,
    no_redact: Annotated[bool, typer.Option("--no-redact", help="As stored: your home, login, host, e-mails "
                                                                "and addresses kept (a copy for yourself).")] = False,
) -> None:
    """Print a conversation as Markdown, JSON, OpenAI chat messages or ShareGPT; with --all, every one.
    What would give you away is masked as conv share masks it (--preview lists it; --no-redact keeps it)."""
    from ..errors import UsageError
    from ..services.redacting import Redacting
    from ..terminal import redactions, render

    if preview and no_redact:
        raise UsageError("--preview shows what redaction would mask, and --no-redact masks nothing",
                         "Give one of them")
    ws = workspace()
    redacting = None if no_redact else Redacting(ws)

    if not everything:
        if tag or since or here or output:
            raise UsageError("--tag, --since, --here and -o go with --all",
                             "e.g. conv export --all --tag work -o notes/")
        from ..services.exchange import export as export_conv

        out = export_conv(ws, ref, fmt, redacting)
        if preview:
            return redactions.report(redacting.report)
        return render.plain(out, end="") if isinstance(out, str) else render.emit_json(out)
    if ref:
        raise UsageError("give a conversation or --all, not both", "conv export --all exports every one")
    from ..services import browse
    from ..services.exchange import export_all

    done = export_all(ws, browse.filters_from(tag=tag, since_text=since, here=here), fmt,
                      None if output == "-" else output, redacting, write=not preview)
    if preview:
        redactions.report(redacting.report)
    elif done.text is not None:
        render.plain(done.text, end="")
    else:
        render.notice(f"{plural(done.count, 'conversation')} written to {done.output}")


@app.command(rich_help_panel=PANEL,
             epilog="Examples:\n\n  conv share k3f9x2                  # writes k3f9x2.html here\n\n"
             "  conv share -o /tmp/rebase.html")
def share(
    ref: Annotated[Optional[str], typer.Argument(help="Conversation (default: the current one).",
                                                 show_default=False)] = None,
    output: Annotated[Optional[str], typer.Option(
        "-o", "--output", help="The file to write, or a folder to write ID.html in, or - for stdout "
                               "(default: ID.html here).")] = None,
    preview: Annotated[bool, typer.Option("--preview", help="List what would be masked, with samples before "
                                                            "and after; write nothing.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Write the page although a key was found in it "
                                                        "(masked), once you have seen it with --preview.")] = False,
) -> None:
    """Write a conversation as one self-contained HTML page to send someone: rendered as on a
    terminal, code highlighted, forks listed; no script, nothing fetched. What would give you
    away is masked (your home folder, login, host, git name and e-mail, the project's root,
    e-mail and IP addresses, internal host names, redact.words), and keys as ***; a key found
    refuses the page until --force."""
    from ..errors import ConvError
    from ..home.files import output_file, write_out
    from ..services.share import share as prepare
    from ..terminal import html, redactions, render

    ws = workspace()
    shared = prepare(ws, ref)
    name = f"{ws.index.queries.short_id(shared.conv.id)}.html"
    text = html.page(shared)
    if preview:
        return redactions.report(shared.redactor.report)
    if shared.masked and not force:
        redactions.report(shared.redactor.report)
        raise ConvError(f"{name[:-5]} holds what looks like a key (above): no page written",
                        f"Take it out (conv edit), or write it masked: conv share {name[:-5]} --force")
    for line in shared.masked:
        render.notice(f"masked: {line}")
    if output == "-":  # the page itself on stdout
        return render.plain(text, end="")
    path = output_file(output or name, name)
    write_out(path, text)
    render.plain(str(path))


@app.command("import", rich_help_panel=PANEL, epilog="Examples:\n\n  conv import --from llm \"$(llm logs path)\"\n\n"
             "  conv import --from chatgpt ~/Downloads/chatgpt-export.zip\n\n"
             "  conv import --from conv k3f9x2.json       # conv export --format json, files and all\n\n"
             "  conv import --from claude-code           # every Claude Code session in ~/.claude/projects\n\n"
             "  conv import --from gemini                # every Gemini CLI session in ~/.gemini/tmp\n\n"
             "  conv import --from aider ~/src          # the chats of every work tree in ~/src\n\n"
             "  conv import --from shell-gpt             # sgpt's chats (its CHAT_CACHE_PATH)\n\n"
             "  conv import --from project               # teammates' conversations of this git project",
             help=f"Import conversations from {tools.said(titles=True)} (running it again adds only what is "
                  "new).\n\nChatGPT branches other than the one you ended on become forks; a coding agent's "
                  "answers keep the files their tool calls changed, the commands they ran and the tokens they "
                  "spent, in their classes.")
def import_(
    path: Annotated[Optional[str], typer.Argument(
        help="The tool's file or folder (a session's file, a folder of them, a database, an export or its zip; "
             "default: where the tool keeps them, as a wrong path's error says), or a git project's folder "
             "(default: the one you are in).",
        show_default=False)] = None,
    source: Annotated[str, typer.Option(
        "--from", help=f"{', '.join(tools.NAMES)} or project (what teammates put on refs/conv/* of this git "
                       "project: conv push --project).")] = ...,
    json_out: Annotated[bool, typer.Option("--json", help="Print what was added as JSON.")] = False,
) -> None:
    from ..services.imports import import_from
    from ..services.projects import PROJECT
    from ..terminal import views

    if source == PROJECT:
        return _import_project(path, json_out)
    views.emit(import_from(workspace(), source, path), json_out, views.imported)


def _import_project(path: str | None, json_out: bool) -> None:
    from ..services.projects import bring_in
    from ..terminal import render, views

    done = bring_in(workspace(), None, path)
    if done.unfetched:
        render.notice(f"{done.unfetched}; read what the project holds")
    views.emit(done, json_out, views.brought_in)
