"""Everything conv prints: plain text when piped, styled on a terminal (rich
for Markdown), JSON on request. Model and store text passes through ``sanitize.clean`` first, so
nothing read from a model or a file can drive the terminal."""

import json
import os
import sys
from datetime import datetime, timezone

from .sanitize import StreamCleaner, clean


def is_terminal(stream=None) -> bool:
    return (stream or sys.stdout).isatty()


def notice(message: str) -> None:
    """A side remark on stderr, out of the way of piped output."""
    sys.stderr.write(f"conv: {clean(message)}\n")
    sys.stderr.flush()


def error(message: str) -> None:
    sys.stderr.write(f"conv: error: {clean(message)}\n")
    sys.stderr.flush()


def plain(text: str) -> None:
    """Text on stdout as it is, but cleaned (stored text may hold escape sequences)."""
    sys.stdout.write(clean(text) + "\n")


def emit_json(data) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


class AnswerPrinter:
    """Streams an answer to stdout as it arrives, cleaned, flushed per piece."""

    def __init__(self):
        self._cleaner = StreamCleaner()
        self._last = "\n"

    def __call__(self, text: str) -> None:
        self._write(self._cleaner.feed(text))

    def _write(self, text: str) -> None:
        if text:
            self._last = text[-1]  # first: a signal during the write still gets its newline
            sys.stdout.write(text)
            sys.stdout.flush()

    def finish(self) -> None:
        self._write(self._cleaner.flush())
        if self._last != "\n":
            self._write("\n")


def ago(iso_time: str, now: datetime | None = None) -> str:
    """``2026-11-21T17:55:20.123Z`` as ``5m ago`` / ``3h ago`` / ``2d ago`` / a date."""
    try:
        then = datetime.fromisoformat(iso_time.replace("Z", "+00:00"))
    except ValueError:
        return iso_time or "-"
    seconds = ((now or datetime.now(timezone.utc)) - then).total_seconds()
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return then.strftime("%Y-%m-%d") if unit == "d" and seconds >= 30 * size else f"{int(seconds // size)}{unit} ago"
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


def table(headers: list[str], rows: list[list[str]]) -> None:
    """Aligned columns, the last one cut to the terminal's width. On a terminal
    the header is bold and the first column coloured (unless NO_COLOR); rich
    would cost 40 ms of import here, a third of conv list's budget."""
    rows = [[clean(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[n]) for r in rows]) for n, h in enumerate(headers[:-1])]
    styled = is_terminal() and not os.environ.get("NO_COLOR")
    room = os.get_terminal_size(sys.stdout.fileno()).columns if is_terminal() else 0
    for n, row in enumerate([headers] + rows):
        cells = [c.ljust(w) for c, w in zip(row[:-1], widths)]
        last = row[-1]
        if room:
            space = max(room - sum(widths) - 2 * len(widths), 10)
            last = last if len(last) <= space else last[: space - 1] + "…"
        line = "  ".join(cells + [last]).rstrip()
        if styled:
            line = f"\x1b[1m{line}\x1b[0m" if n == 0 else f"\x1b[36m{cells[0]}\x1b[0m" + line[len(cells[0]):]
        sys.stdout.write(line + "\n")


def transcript(title: str, info: str, sections: list[tuple[str, str]]) -> None:
    """A title, a line of facts, then (heading, Markdown body) sections:
    rendered on a terminal, plain Markdown when piped."""
    title, info = clean(title), clean(info)
    if not is_terminal():
        out = [f"# {title}\n\n{info}\n"] + [f"## {clean(h)}\n\n{clean(b).rstrip()}\n" for h, b in sections]
        sys.stdout.write("\n".join(out))
        return
    from rich.console import Console
    from rich.markdown import Markdown
    from rich.rule import Rule
    from rich.text import Text

    console = Console(markup=False, emoji=False, highlight=False)
    console.print(Text(title, style="bold"))
    console.print(Text(info, style="dim"))
    console.print()
    for heading, body in sections:
        console.print(Rule(clean(heading), align="left", style="dim"))
        console.print(Markdown(clean(body), hyperlinks=False))
        console.print()


def when(epoch: int) -> str:
    """A commit time as local date and time."""
    from datetime import datetime

    return datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M")


def search_hit(short: str, updated: str, title: str, role: str, spans: list[tuple[str, bool]]) -> None:
    """One search result: a line about the conversation, then the text around
    the match (matches bold on a terminal unless NO_COLOR)."""
    styled = is_terminal() and not os.environ.get("NO_COLOR")
    text = "".join(f"\x1b[1m{clean(t)}\x1b[0m" if hit and styled else clean(t) for t, hit in spans)
    text = " ".join(text.split())
    head = f"{short}  {updated}  {clean(title)}"
    sys.stdout.write((f"\x1b[36m{head}\x1b[0m" if styled else head) + f"\n    {role}: {text}\n")


def rich(renderable) -> None:
    from rich.console import Console

    Console(markup=False, emoji=False, highlight=False).print(renderable)
