"""Everything conv prints: plain text when piped, styled on a terminal (rich
for Markdown), JSON on request. Every text passes through ``sanitize.clean``
first (JSON through ``emit_json``), so nothing read from a model or a file can
drive the terminal and no secret is shown. A reader that goes away (``| head``)
is not an error: conv stops writing and ends as SIGPIPE would end it, 141."""

from __future__ import annotations

import os
import signal
import sys

from ..errors import Interrupted
from ..home.secrets import redacted
from .sanitize import StreamCleaner, clean, escape_json, inert_entities

TYPE_CHECKING = False  # typing's, without importing typing: PEP 781's idiom

if TYPE_CHECKING:  # json and datetime are imported where used: conv push and conv prompt print neither
    from datetime import datetime


def is_terminal(stream=None) -> bool:
    return (stream or sys.stdout).isatty()


def notice(message: str) -> None:
    """A side remark on stderr, out of the way of piped output: one line (a line break in it, a file's name
    holding one, shown as \\n)."""
    sys.stderr.write(f"conv: {_one_line(message)}\n")
    sys.stderr.flush()


def error(message: str) -> None:
    sys.stderr.write(f"conv: error: {_one_line(message)}\n")
    sys.stderr.flush()


def _one_line(message: str) -> str:
    return clean(message).replace("\r", "\\r").replace("\n", "\\n")


def plain(text: str, end: str = "\n") -> None:
    """Text on stdout as it is, but cleaned (stored text may hold escape sequences)."""
    _out(clean(text) + end)


def wrapped(text: str, hang: int = 0) -> None:
    """Lines of text on stdout, each wrapped at word boundaries to a terminal's
    width (the rest of a line indented by ``hang``): a terminal would cut words."""
    room = os.get_terminal_size(sys.stdout.fileno()).columns if is_terminal() else 0
    if not room:
        return plain(text)
    import textwrap

    plain("\n".join(textwrap.fill(line, room - 1, subsequent_indent=" " * hang, break_on_hyphens=False,
                                   break_long_words=False) or line for line in text.split("\n")))


def emit_json(data) -> None:
    """JSON on stdout: secrets masked, control and bidi characters escaped."""
    import json

    _out(escape_json(json.dumps(redacted(data), ensure_ascii=False, indent=2)) + "\n")


def _out(text: str) -> None:
    """Write to stdout; if its reader has gone, end conv quietly (exit 141)."""
    try:
        _write(text)
    except BrokenPipeError:
        drop_stdout()
        raise Interrupted(signal.SIGPIPE) from None


def _write(text: str) -> None:
    """All of ``text`` on stdout, or BrokenPipeError. Not through the text
    layer alone: its write of a large text drops what a closed pipe did not
    take without a word (the buffer reports a short write, the layer ignores it)."""
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    if buffer is None:
        out.write(text)
        return
    out.flush()  # what went through the text layer first stays first
    data = memoryview(text.encode(out.encoding, out.errors))
    while data:
        data = data[buffer.write(data):]
    if out.line_buffering:
        buffer.flush()


def drop_stdout() -> None:
    """stdout's reader went away: what is still written (or buffered) goes to
    /dev/null, so nothing fails when Python flushes it at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


class AnswerPrinter:
    """Streams an answer to stdout as it arrives, cleaned, flushed per piece;
    with ``markdown``, rendered line by line as it completes
    (streamed_markdown.py). If the reader goes away it stops writing and the
    answer keeps arriving (to be stored whole); ``check``, once it is
    stored, ends conv with 141."""

    def __init__(self, markdown: bool = False):
        self._cleaner = StreamCleaner()
        self._last = "\n"
        self.reader_gone = False
        self._markdown = None
        if markdown:
            from .streamed_markdown import StreamedMarkdown

            self._markdown = StreamedMarkdown(self._write)

    def __call__(self, text: str) -> None:
        cleaned = self._cleaner.feed(text)
        if self._markdown is not None:
            self._markdown.feed(cleaned)
        else:
            self._write(cleaned)

    def _write(self, text: str) -> None:
        if text and not self.reader_gone:
            self._last = text[-1]  # first: a signal during the write still gets its newline
            try:
                _write(text)
                sys.stdout.flush()
            except BrokenPipeError:
                self.reader_gone = True
                drop_stdout()

    def finish(self) -> None:
        """The held-back tail and a last newline."""
        if self._markdown is not None:
            self._markdown.feed(self._cleaner.flush())
            self._markdown.finish()
        else:
            self._write(self._cleaner.flush())
        if self._last != "\n":
            self._write("\n")

    def check(self) -> None:
        """After the answer is stored: end conv if nobody reads it any more."""
        if self.reader_gone:
            raise Interrupted(signal.SIGPIPE)


def wants_markdown(plain: bool, setting: str | None) -> bool:
    """Render answers as Markdown while they stream: on a terminal, unless
    NO_COLOR, ``--plain`` or ``render: plain`` say otherwise."""
    return is_terminal() and not os.environ.get("NO_COLOR") and not plain and setting != "plain"


def ago(iso_time: str, now: datetime | None = None) -> str:
    """``2026-11-21T17:55:20.123Z`` as ``5m ago`` / ``3h ago`` / ``2d ago`` / a date."""
    from datetime import datetime, timezone

    try:
        then = datetime.fromisoformat(iso_time.replace("Z", "+00:00"))
    except ValueError:
        return iso_time or "-"
    seconds = ((now or datetime.now(timezone.utc)) - then).total_seconds()
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return (then.strftime("%Y-%m-%d") if unit == "d" and seconds >= 30 * size
                    else f"{int(seconds // size)}{unit} ago")
    return "just now"


def count(n: int) -> str:
    """Token counts the way people read them: 950, 12.3k, 4.1M."""
    for unit, size in (("M", 1_000_000), ("k", 1000)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def dollars(amount: float | None) -> str:
    if amount is None:
        return "?"
    return f"${amount:.4f}" if amount < 1 else f"${amount:.2f}"


def table(headers: list[str], rows: list[list[str]], wrap: bool = False) -> None:
    """Aligned columns, the last one cut to the terminal's width (``wrap``: wrapped
    at word boundaries under itself instead, for text that must be read whole,
    such as a command). On a terminal the header is bold and the first column
    coloured (unless NO_COLOR); rich would cost 40 ms of import here, a third of
    conv list's budget."""
    rows = [[clean(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[n]) for r in rows]) for n, h in enumerate(headers[:-1])]
    styled = is_terminal() and not os.environ.get("NO_COLOR")
    room = os.get_terminal_size(sys.stdout.fileno()).columns if is_terminal() else 0
    for n, row in enumerate([headers] + rows):
        cells = [c.ljust(w) for c, w in zip(row[:-1], widths)]
        last = row[-1]
        if room:
            space = max(room - sum(widths) - 2 * len(widths), 10)
            if wrap and len(last) > space:
                import textwrap

                indent = " " * (sum(widths) + 2 * len(widths))
                last = f"\n{indent}".join(textwrap.wrap(last, space, break_on_hyphens=False, break_long_words=False))
            last = last if wrap or len(last) <= space else last[: space - 1] + "…"
        line = "  ".join(cells + [last]).rstrip()
        if styled:
            line = f"\x1b[1m{line}\x1b[0m" if n == 0 else f"\x1b[36m{cells[0]}\x1b[0m" + line[len(cells[0]):]
        _out(line + "\n")


def transcript(title: str, info: str, sections: list[tuple[str, str]]) -> None:
    """A title, a line of facts, then (heading, Markdown body) sections:
    rendered on a terminal, plain Markdown when piped."""
    title, info = clean(title), clean(info)
    if not is_terminal():
        out = [f"# {title}\n\n{info}\n"] + [f"## {clean(h)}\n\n{clean(b).rstrip()}\n" for h, b in sections]
        _out("\n".join(out))
        return
    from rich.rule import Rule
    from rich.text import Text

    from ..home.secrets import spans
    from .markdown import document

    console = _console()
    console.print(Text(title, style="bold"))
    console.print(Text(info, style="dim"))
    console.print()
    for heading, body in sections:
        console.print(Rule(clean(heading), align="left", style="dim"))
        console.print(document(inert_entities(clean(body)), spans))
        console.print()


def when(epoch: int) -> str:
    """A commit time as local date and time."""
    from datetime import datetime

    return datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M")


def search_hit(short: str, updated: str, title: str, where: str, spans: list[tuple[str, bool]]) -> None:
    """One search result: a line about the conversation, one saying where the
    match is, then the text around it (matches bold on a terminal unless NO_COLOR)."""
    styled = is_terminal() and not os.environ.get("NO_COLOR")
    text = "".join(f"\x1b[1m{clean(t)}\x1b[0m" if hit and styled else clean(t) for t, hit in spans)
    text = " ".join(text.split())
    head = f"{short}  {updated}  {clean(title)}"
    line = f"    {clean(where)}"
    _out((f"\x1b[36m{head}\x1b[0m\n\x1b[2m{line}\x1b[0m" if styled else f"{head}\n{line}") + f"\n    {text}\n")


def rich(renderable) -> None:
    _console().print(renderable)


def _console():
    """rich's console on stdout; with NO_COLOR, laid out the same but without
    any escape sequence (rich alone would still send bold and underline)."""
    from rich.console import Console

    plain = {"color_system": None} if os.environ.get("NO_COLOR") else {}
    return Console(markup=False, emoji=False, highlight=False, **plain)
