"""``conv ask``: a question to a new conversation, or a follow-up."""

from typing import Annotated, Optional

import typer

from .app import app

PANEL = "Ask"


@app.command(rich_help_panel=PANEL, 
    epilog='Examples:\n\n  conv ask "explain git rebase"\n\n  conv ask -c "what about interactive mode?"\n\n'
    '  git diff | conv ask "review this"\n\n  conv ask --cid k3f9x2 -m gpt-4o "and in Python?"\n\n'
    '  conv ask -a coder -c "now add tests"\n\n  conv ask -c --dry-run "what would you be sent?"'
)
def ask(
    words: Annotated[Optional[list[str]], typer.Argument(help="The question; words are joined with spaces.", show_default=False)] = None,
    follow: Annotated[bool, typer.Option("-c", "--continue", help="Follow up this terminal's current conversation (or the latest). A first word that names a conversation picks that one instead.")] = False,
    cid: Annotated[Optional[str], typer.Option("--cid", metavar="REF", help="Follow up exactly this conversation (id, unique prefix or suffix).")] = None,
    new: Annotated[bool, typer.Option("--new", help="Start a new conversation even with -c.")] = False,
    model: Annotated[Optional[str], typer.Option("-m", "--model", help="Model, or PROVIDER:MODEL. Default: CONV_MODEL, then config.")] = None,
    system: Annotated[Optional[str], typer.Option("-s", "--system", help="System prompt (kept with the conversation).")] = None,
    no_stream: Annotated[bool, typer.Option("--no-stream", help="Wait for the whole answer.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the answer with the conversation and turn ids as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="The answer only, no notices.")] = False,
    no_save: Annotated[bool, typer.Option("--no-save", help="Do not store this exchange.")] = False,
    agent: Annotated[Optional[str], typer.Option("-a", "--agent", metavar="NAME", help="Start a conversation with this agent from config (its prompt, model, temperature, context); with -c, continue its latest.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print exactly the messages that would be sent, and to which model; store nothing, call nothing.")] = False,
) -> None:
    """Ask a question; text piped on stdin is added to it."""
    from ..services.ask.options import AskOptions
    from .asking import AskCommand, run

    options = AskOptions(
        words=words or [], follow=follow, cid=cid, new=new, model=model,
        system=system, stream=not no_stream, save=not no_save, agent=agent,
    )
    run(AskCommand(options, json_out=json_out, quiet=quiet, dry_run=dry_run))


@app.command(rich_help_panel=PANEL, epilog='Examples:\n\n  conv retry                          # the current conversation\'s last answer, again\n\n'
             '  conv retry k3f9x2 --hint "it is about rebase, not merge"\n\n  conv diff k3f9x2                    # old answer against new')
def retry(
    ref: Annotated[Optional[str], typer.Argument(help="Conversation (default: the current one).", show_default=False)] = None,
    hint: Annotated[Optional[str], typer.Option("--hint", help="Tell the model its last answer was wrong, and why.")] = None,
    wrong: Annotated[bool, typer.Option("--wrong", help="Tell the model its last answer was wrong.")] = False,
    model: Annotated[Optional[str], typer.Option("-m", "--model", help="Model for the new answer (default: the old answer's).")] = None,
    no_stream: Annotated[bool, typer.Option("--no-stream", help="Wait for the whole answer.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the answer with the conversation and turn ids as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="The answer only, no notices.")] = False,
) -> None:
    """That answer was wrong: answer the last question again (the old answer stays in history)."""
    from ..services.ask.options import AskOptions
    from .asking import AskCommand, run

    options = AskOptions(words=[], model=model, stream=not no_stream)
    run(AskCommand(options, json_out=json_out, quiet=quiet), how=lambda asker, opts: asker.retry(ref, hint, wrong, opts))
