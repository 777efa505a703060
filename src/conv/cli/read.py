"""The Read panel: list, search, show, log, diff and stats."""

from typing import Annotated, Optional

import typer

from .app import app, workspace

PANEL = "Read"


Since = Annotated[Optional[str], typer.Option("--since", metavar="AGE|DATE",
                                              help="Updated within AGE (7d, 12h) or since DATE (2026-11-01).")]

Agent = Annotated[Optional[str], typer.Option("-a", "--agent", help="Only this agent's conversations.")]

Tag = Annotated[Optional[str], typer.Option("--tag", help="Only conversations with this tag.")]

Status = Annotated[Optional[str], typer.Option("--status", help="Only active, paused or done ones.")]

Source = Annotated[Optional[str], typer.Option("--source", help="Only those imported or captured from this tool "
                                                         "(claude-code, codex, llm…), or conv for conv's own.")]

Model = Annotated[Optional[str], typer.Option("-m", "--model", help="Only those a model of this name answered in.")]

Json = Annotated[bool, typer.Option("--json", help="Print JSON.")]

Here = Annotated[bool, typer.Option("--here", help="Only the conversations of the git project you are in "
                                                   "(started in it, or imported from a session run in it).")]


@app.command("list", rich_help_panel=PANEL,
             epilog="Examples:\n\n  conv list\n\n  conv list -n 10 --tag work --since 7d\n\n"
             "  conv list --here           # this project's\n\n"
             "  conv list --source claude-code   # captured from Claude Code\n\n  conv list --tree --json")
@app.command("c", rich_help_panel=PANEL, help="Short for conv list.",
             epilog="Examples:\n\n  conv c\n\n  conv c -a coder -n 5")
def list_(
    limit: Annotated[int, typer.Option("-n", "--limit", min=1, help="How many, newest first.")] = 50,
    agent: Agent = None,
    tag: Tag = None,
    since: Since = None,
    status: Status = None,
    tree: Annotated[bool, typer.Option("--tree", help="Show forks under the conversations they came from.")] = False,
    deleted: Annotated[bool, typer.Option("--deleted", help="List the trash instead (conv restore REF).")] = False,
    here: Here = False,
    source: Source = None,
    model: Model = None,
    json_out: Json = False,
) -> None:
    """List conversations, most recently updated first (* marks the current one)."""
    from ..services import browse
    from ..terminal import views

    ws, filters = workspace(), browse.filters_from(agent, tag, since, status, deleted, here, source, model)
    asked = " ".join(f"{flag} {value}" for flag, value in (("--agent", agent), ("--tag", tag), ("--since", since),
                                                            ("--status", status), ("--source", source),
                                                            ("--model", model)) if value)
    asked = f"{asked} --here ({filters.here})".strip() if here else asked
    views.emit(browse.listing(ws, limit, filters, tree), json_out, views.listing, limit, asked, deleted,
               lambda: browse.total(ws, filters), lambda: browse.total(ws, browse.filters_from(deleted=True)),
               data=lambda listing: [item.to_dict() for item in listing])


@app.command(rich_help_panel=PANEL, epilog='Examples:\n\n  conv search rebase\n\n'
             '  conv search what did we decide about the retry policy\n\n'
             '  conv search "interactive rebase" --tag git -n 5')
def search(
    text: Annotated[list[str], typer.Argument(help='What to find, as you would ask it: words (their other forms '
                                                  'too: retry finds retries), "quoted phrases", prefixes (retr*).')],
    limit: Annotated[int, typer.Option("-n", "--limit", min=1, help="How many conversations.")] = 20,
    agent: Agent = None,
    tag: Tag = None,
    since: Since = None,
    status: Status = None,
    here: Here = False,
    source: Source = None,
    model: Model = None,
    json_out: Json = False,
) -> None:
    """Search every turn and title of every conversation: conversations holding every word first, then those
    holding the most of the rarest ones; each hit names its tool, project, model and turn (conv show ID --turn
    N)."""
    from .run.search import run

    run({"text": text, "limit": limit, "agent": agent, "tag": tag, "since": since, "status": status, "here": here,
         "source": source, "model": model, "json_out": json_out})


@app.command(rich_help_panel=PANEL, epilog="Examples:\n\n  conv show\n\n"
             "  conv show -l            # the conversation updated last\n\n  conv show k3f9x2 --raw\n\n"
             "  conv show k3f9x2 --turn 7   # from the turn a search found")
def show(
    ref: Annotated[Optional[str], typer.Argument(help="Conversation id, unique prefix or suffix "
                                                      "(default: the current one).", show_default=False)] = None,
    latest: Annotated[bool, typer.Option("-l", "--latest",
                                         help="The conversation updated last, instead of the current one.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    raw: Annotated[bool, typer.Option("--raw", help="The files exactly as stored.")] = False,
    last: Annotated[Optional[int], typer.Option("--last", metavar="N", min=1, help="Only the last N turns.")] = None,
    turn: Annotated[Optional[int], typer.Option("--turn", metavar="N", min=1,
                                                help="From turn N on (a search hit names its turn).")] = None,
) -> None:
    """Show a conversation: Markdown on a terminal, plain text when piped."""
    from ..services import browse
    from ..terminal import views

    if latest:
        ref = browse.latest(workspace(), ref)
    if raw:
        return views.raw_files(browse.raw_files(workspace(), ref, turn, last))
    conv = browse.conversation(workspace(), ref, turn)
    views.emit(conv, json_out, views.conversation, last, turn, data=lambda c: views.conversation_data(c, turn))


@app.command(rich_help_panel=PANEL, epilog="Examples:\n\n  conv log\n\n  conv log k3f9x2 --json")
def log(ref: Annotated[Optional[str], typer.Argument(help="Conversation (default: the current one).",
                                                     show_default=False)] = None,
        json_out: Json = False) -> None:
    """The history of a conversation: every ask, answer, retry, edit and change, with commit ids for conv diff --rev."""
    from ..services.history import log as history
    from ..terminal import views

    views.emit(history(workspace(), ref), json_out, views.log)


@app.command(rich_help_panel=PANEL,
             epilog="Examples:\n\n  conv diff k3f9x2 p8r2m1          # a fork against its parent\n\n"
             "  conv diff k3f9x2                 # the last change (e.g. a retry)\n\n"
             "  conv diff k3f9x2 --rev 1a2b3c4d..")
def diff(
    ref_a: Annotated[Optional[str], typer.Argument(metavar="A", help="A conversation (default: the current one).",
                                                   show_default=False)] = None,
    ref_b: Annotated[Optional[str], typer.Argument(metavar="B", help="A second conversation to compare A with.",
                                                   show_default=False)] = None,
    rev: Annotated[Optional[str], typer.Option(
        "--rev", metavar="X..Y", help="Two versions of A: commit ids from conv log (Y defaults to now).")] = None,
    json_out: Json = False,
) -> None:
    """Compare two conversations, or two versions of one: the shared start on one line, then turn by turn."""
    from ..errors import UsageError
    from ..services import diffing, history
    from ..terminal import views

    if ref_b and rev:
        raise UsageError("give two conversations or --rev, not both", "e.g. conv diff A B, or conv diff A --rev X..Y")
    ws = workspace()
    result = history.diff_conversations(ws, ref_a, ref_b) if ref_b else history.diff_versions(ws, ref_a, rev)
    views.emit(result, json_out, views.diff, data=diffing.to_dict)


@app.command(rich_help_panel=PANEL,
             epilog="Examples:\n\n  conv stats                          # the last 30 days, by tool\n\n"
             "  conv stats --by project --by model --since 7d\n\n  conv stats --by week --here --json")
def stats(
    by: Annotated[Optional[list[str]], typer.Option(
        "--by", help="Group by project, source, model, day, week or month; several at once: --by project --by "
                     "week (default: source).")] = None,
    since: Annotated[str, typer.Option("--since", metavar="AGE|DATE",
                                       help="Answers within AGE (30d, 12h) or since DATE (2026-11-01).")] = "30d",
    until: Annotated[Optional[str], typer.Option("--until", metavar="AGE|DATE",
                                                 help="Answers before AGE ago or DATE.")] = None,
    here: Here = False,
    source: Source = None,
    json_out: Json = False,
) -> None:
    """What the work cost: the tokens of every answer in their classes (input, cache write, cache read, output)
    and their cost, from every tool: the tool's own figure where it kept one, else your prices.MODEL.* or the
    small table conv ships; what has no price is said, not counted as nothing."""
    from .run.stats import run

    run({"by": by, "since": since, "until": until, "here": here, "source": source, "json_out": json_out})


@app.command(rich_help_panel=PANEL,
             epilog="Examples:\n\n  conv blame src/fetch.py\n\n  conv blame src/fetch.py:40-60 --json\n\n"
             "  conv show k3f9x2 --turn 7            # the turn a line names")
def blame(
    target: Annotated[str, typer.Argument(metavar="FILE[:LINE[-LINE]]", help="A file of the git work tree you are "
                                                                             "in, and the lines to ask about.")],
    json_out: Json = False,
) -> None:
    """Which conversation wrote each line of a file: the commit git blame gives, and the conversation and turn
    whose edit wrote that text (in a session of this project, before the commit; every tool's, captured or
    imported, teammates' too); a line no conversation wrote says why when conv can."""
    from ..services.origins import blame as blamed
    from ..services.origins import file_and_lines
    from ..terminal import origins, views

    views.emit(blamed(workspace(), *file_and_lines(target)), json_out, origins.blamed)


@app.command(rich_help_panel=PANEL,
             epilog="Examples:\n\n  conv origin                          # HEAD\n\n"
             "  conv origin main..feature --json\n\n"
             "  conv origin --link                   # trailers on the commits to come\n\n"
             "  conv origin main..HEAD --note        # notes on these, pushed by conv push --project")
def origin(
    spec: Annotated[str, typer.Argument(metavar="[COMMIT | A..B]", help="A commit, or each commit of a range.")]
    = "HEAD",
    note: Annotated[bool, typer.Option("--note", help="Also write conv's note (refs/notes/conv, carried by conv push "
                                                      "--project) on each commit a conversation wrote at least "
                                                      "3 added lines of (all, when it added fewer).")] = False,
    link: Annotated[bool, typer.Option("--link", help="Instead: install a prepare-commit-msg hook in this "
                                                      "project that adds a Conv-Conversation trailer for each "
                                                      "conversation whose edits a commit holds (yours chained).")]
    = False,
    unlink: Annotated[bool, typer.Option("--unlink", help="Instead: take that hook out (yours put back as it "
                                                          "was).")] = False,
    staged: Annotated[bool, typer.Option("--staged", help="Instead: the ids of the conversations whose edits the "
                                                          "staged changes hold, one a line (what the hook "
                                                          "writes).")] = False,
    json_out: Json = False,
) -> None:
    """The conversations that wrote a commit's added lines, each with its share of them, and the lines no
    conversation wrote; its Conv-Conversation trailers and conv's note named too."""
    from ..errors import UsageError
    from ..services import origins as found
    from ..terminal import origins, views

    if sum((note, link, unlink, staged)) > 1 or (spec != "HEAD" and (link or unlink or staged)):
        raise UsageError("--note, --link, --unlink and --staged go alone (--note with a COMMIT or A..B)",
                         "e.g. conv origin --link, or conv origin main..HEAD --note")
    if link or unlink:
        return views.emit(found.link(workspace(), remove=unlink), json_out, origins.linked)
    if staged:
        return views.emit(found.staged(workspace()), json_out, origins.staged, data=lambda ids: {"conversations": ids})
    views.emit((found.note if note else found.origin)(workspace(), spec), json_out, origins.origins)


@app.command(rich_help_panel=PANEL,
             epilog="Examples:\n\n  conv serve                 # then open the address it prints\n\n"
             "  conv serve --port 8377 --open")
def serve(
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="The port on 127.0.0.1 (0: any free "
                                                                      "one).")] = 8377,
    open_browser: Annotated[bool, typer.Option("--open", help="Open it in the browser.")] = False,
) -> None:
    """A read-only web viewer of the whole store on 127.0.0.1: every conversation with filters, search as you type,
    each conversation rendered with its versions, forks and diffs, the stats as charts, and what comes in shown
    live. It asks for the token in the address it prints; Ctrl-C stops it."""
    from ..terminal.render import notice, plain
    from ..web.server import serve as serving

    def said(url: str) -> None:
        plain(url)
        notice("serving the store, read-only (Ctrl-C stops it)")

    serving(port, open_browser, said)
