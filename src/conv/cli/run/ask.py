"""Running an ask once its arguments are parsed, by Typer (cli/ask.py) or by
the fast path (cli/run/argv.py). Imports nothing heavy: no Typer here."""

import sys

from ...records import dataclass
from ...services.ask.options import AskOptions

MAX_STDIN = 4 * 1024 * 1024  # more than any model takes in one message


@dataclass
class AskCommand:
    """Everything ``conv ask`` was told: what to ask, and how to print it."""

    options: AskOptions
    json_out: bool = False
    quiet: bool = False
    dry_run: bool = False
    plain: bool = False  # --plain: print the answer's Markdown as it is, even on a terminal


def ask_command(given: dict) -> AskCommand:
    """The one builder of what conv ask was told, from its parameters by the
    names cli/spec.py gives them (absent: not given): the fast path's parser
    and Typer's command both hand theirs here, so the two cannot drift."""
    options = AskOptions(
        words=list(given.get("words") or []), follow=bool(given.get("follow")), cid=given.get("cid"),
        new=bool(given.get("new")), model=given.get("model"), system=given.get("system"),
        stream=not given.get("no_stream"), save=not given.get("no_save"), agent=given.get("agent"),
        model_options=[tuple(pair) for pair in given.get("option") or []], files=list(given.get("file") or []))
    return AskCommand(options, json_out=bool(given.get("json_out")), quiet=bool(given.get("quiet")),
                      dry_run=bool(given.get("dry_run")), plain=bool(given.get("plain")))


def run(command: AskCommand, how=None) -> None:
    """Ask (or, with ``how``, e.g. retry) and print the answer as it arrives."""
    from ...services.ask.options import Output
    from ...services.ask.pipeline import Asker
    from ...services.catch_up import on_command
    from ...services.workspace import Workspace
    from ...terminal import render

    opts = command.options
    if how is None and "-" in opts.files:  # -f -: stdin is a file (an image, perhaps), not more of the question
        opts.stdin_file = piped()
    elif how is None:
        opts.stdin_text = read_stdin()
    if how is None:
        opts.last_command = shared_last_command()
    notice = (lambda m: None) if command.quiet else render.notice
    ws = Workspace(notice=notice)
    on_command(ws)  # what the agents' captures have to say; the catch-up (import.auto)
    printer = render.AnswerPrinter(markdown=not command.json_out and render.wants_markdown(
        command.plain, ws.config.get("render")))
    streaming = not (command.json_out or not opts.stream)
    asker = Asker(ws, Output(notice=notice, on_text=printer if streaming else (lambda text: None)))
    if command.dry_run:  # the messages, each under a rule naming its role (or as JSON)
        from ...terminal import views

        return views.emit(asker.preview(opts), command.json_out, views.preview)
    try:
        result = how(asker, opts) if how else asker.ask(opts)
    finally:
        if streaming:
            printer.finish()
    if command.json_out:
        render.emit_json(result.to_dict())
    elif not streaming:
        printer(result.text)
        printer.finish()
    printer.check()  # stored whole; a reader that left (| head) ends conv as SIGPIPE would


def piped() -> bytes | None:
    """What is piped on stdin, of a sane size (None on a terminal; too much is bad input, exit 1)."""
    from ...errors import ConvError

    if sys.stdin is None or sys.stdin.isatty():
        return None
    data = sys.stdin.buffer.read(MAX_STDIN + 1)
    if len(data) > MAX_STDIN:
        raise ConvError(
            f"stdin holds more than {MAX_STDIN // 1048576} MB",
            "Send a part of it, e.g. | tail -c 1000000",
        )
    return data


def read_stdin() -> str | None:
    """Piped text, checked: it must be UTF-8 text of a sane size (bad input: exit 1)."""
    from ...errors import ConvError
    from ...format.turn_files import image_type

    data = piped()
    if data is None:
        return None
    if b"\0" in data or image_type(data):
        raise ConvError("stdin holds binary data (an image?), not text to add to the question",
                        'To send it as a file (an image is shown to models that see them): conv ask -f - "…" < FILE')
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConvError(
            f"stdin is not UTF-8 text (bad byte at offset {exc.start})",
            "Convert it first, e.g. | iconv -f latin1 -t utf-8"
        ) from None
    return text or None


def shared_last_command() -> tuple[str, str] | None:
    """The last command line and its status, when the shell plugin shares them
    (off unless CONV_SHARE_LAST_COMMAND=1 is set in the shell; see docs/usage.md)."""
    from ...home.env import lenient

    command = lenient("CONV_LAST_COMMAND").strip()  # a file name in it may well be Latin-1
    status = lenient("CONV_LAST_STATUS")
    if not command or not status.isdigit():
        return None
    return command[:2000], status
