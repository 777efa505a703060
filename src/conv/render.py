"""Everything conv prints: plain text when piped, rich on a terminal, JSON
on request. Model and store text passes through ``sanitize.clean`` first, so
nothing read from a model or a file can drive the terminal."""

import json
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


def table(headers: list[str], rows: list[list[str]]) -> None:
    """Aligned columns; a rich table on a terminal (colour unless NO_COLOR)."""
    rows = [[clean(c) for c in row] for row in rows]
    if is_terminal():
        from rich.console import Console
        from rich.table import Table

        t = Table(box=None, pad_edge=False, header_style="bold", highlight=False)
        for n, h in enumerate(headers):
            t.add_column(h, no_wrap=n < len(headers) - 1, overflow="ellipsis", style="cyan" if n == 0 else None)
        for row in rows:
            t.add_row(*row)
        Console(markup=False, emoji=False).print(t)
        return
    widths = [max([len(h)] + [len(r[n]) for r in rows]) for n, h in enumerate(headers)]
    for row in [headers] + rows:
        cells = [c.ljust(w) for c, w in zip(row[:-1], widths)] + [row[-1]]
        sys.stdout.write("  ".join(cells).rstrip() + "\n")


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
