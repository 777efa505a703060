"""``conv ask``: a question to a new conversation, or a follow-up."""

import sys
from typing import Annotated, Optional

import typer

from .app import app

MAX_STDIN = 4 * 1024 * 1024  # more than any model takes in one message


@app.command(
    epilog='Examples:\n\n  conv ask "explain git rebase"\n\n  conv ask -c "what about interactive mode?"\n\n'
    '  git diff | conv ask "review this"\n\n  conv ask --cid k3f9x2 -m gpt-4o "and in Python?"'
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
) -> None:
    """Ask a question; text piped on stdin is added to it."""
    from .. import render
    from ..services.ask import Asker, AskOptions
    from ..services.workspace import Workspace

    printer = render.AnswerPrinter()
    streaming = not (json_out or no_stream)
    asker = Asker(
        Workspace(),
        notice=(lambda m: None) if quiet else render.notice,
        on_text=printer if streaming else (lambda text: None),
    )
    options = AskOptions(
        words=words or [], stdin_text=read_stdin(), follow=follow, cid=cid, new=new, model=model,
        system=system, stream=not no_stream, save=not no_save,
    )
    try:
        result = asker.ask(options)
    finally:
        if streaming:
            printer.finish()
    if json_out:
        render.emit_json(result.to_dict())
    elif not streaming:
        printer(result.text)
        printer.finish()


def read_stdin() -> str | None:
    """Piped text, checked: it must be UTF-8 text of a sane size."""
    from ..errors import UsageError

    if sys.stdin is None or sys.stdin.isatty():
        return None
    data = sys.stdin.buffer.read(MAX_STDIN + 1)
    if len(data) > MAX_STDIN:
        raise UsageError(
            f"stdin holds more than {MAX_STDIN // 1048576} MB",
            "Send a part of it, e.g. | tail -c 1000000",
        )
    if b"\0" in data:
        raise UsageError("stdin holds NUL bytes (binary data?)", "Pipe text only")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"stdin is not UTF-8 text (bad byte at offset {exc.start})", "Convert it first, e.g. | iconv -f latin1 -t utf-8"
        ) from None
    return text or None
