"""An answer rendered as Markdown while it streams, as mods and aichat do,
without holding back the first bytes or redrawing the screen: the line being
written shows as it arrives (plain), and once it is complete it is written
again in its place, rendered (a heading, emphasis, a list item, a line of a
fenced code block with syntax highlighting). Only that one line, which may
wrap over a few rows, is ever rewritten; but a table, whose columns only
its last row settles, shows plain row by row and is rewritten whole once it
ends. A line Markdown would leave as it is (AS_WRITTEN) stays as streamed:
nothing is rewritten, and an answer of such lines never imports rich (a
fifth of a second of a terminal ask).

It takes text that render's StreamCleaner has already cleaned (no control
character, no escape sequence, secrets masked): the only escape sequences
on the way out are rich's styles and the cursor moves made here. rich is
imported when the first line that needs rendering is complete, never before
the first bytes.
"""

import re
import shutil

from .sanitize import inert_entities

FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+#.-]*)")
TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
# A line that renders as exactly its own text (tests/test_streamed_markdown.py
# checks it against rich): it begins with a letter, holds no character Markdown
# gives a meaning to (* _ ` ~ # > < & [ ] | \ and a tab) and ends in no space.
AS_WRITTEN = re.compile(r"[A-Za-z][A-Za-z0-9 ,.;:!?'\"()/+=%@$^{}-]*(?<! )")


class StreamedMarkdown:
    """Feed it cleaned text; it writes through ``write`` (render's)."""

    def __init__(self, write):
        self._write = write
        self._line = ""  # the incomplete line, shown plain
        self._fence: tuple[str, str] | None = None  # (marker, language) inside a fenced block
        self._table: list[str] = []  # the rows of a table being written, shown plain so far
        self._console = None

    def feed(self, text: str) -> None:
        *complete, rest = text.split("\n")
        if not complete:
            self._line += text
            self._write(text)
            return
        self._end_line(complete[0])
        for line in complete[1:]:
            self._render(line)
        self._line = rest
        self._write(rest)

    def finish(self) -> None:
        """The last line, rendered, if the answer did not end with a newline; a table that ends the answer."""
        if self._line:
            self._end_line("")
        self._end_table()

    def _end_line(self, tail: str) -> None:
        """The line on screen ends with TAIL: it stays if it renders as written,
        else it is taken back and written rendered."""
        line = self._line + tail
        if self._fence is None and not self._table and self._as_written(line):
            self._write(tail + "\n")
        else:
            self._erase(self._line)
            self._render(line)
        self._line = ""

    def _erase(self, shown: str) -> None:
        """Take the plain text of the current line back off the screen."""
        if not shown:
            return
        from rich.cells import cell_len

        rows = max(cell_len(shown) - 1, 0) // max(shutil.get_terminal_size().columns, 1)
        self._write((f"\x1b[{rows}A" if rows else "") + "\r\x1b[J")

    def _render(self, line: str) -> None:
        if self._fence is None and TABLE_ROW.match(line):
            self._table.append(line)
            self._write(line + "\n")
            return
        self._end_table()
        if self._fence is None and not line.strip():
            self._write("\n")
            return
        if self._fence is None and self._as_written(line):
            self._write(line + "\n")
            return
        console = self._rich()
        fence = FENCE.match(line)
        if self._fence is not None:
            if fence and fence.group(1).startswith(self._fence[0][:3]) and not fence.group(2):
                self._fence = None
                console.print(line, style="dim", markup=False, highlight=False)
                return
            from rich.syntax import Syntax

            highlighted = Syntax(line, self._fence[1] or "text", theme="ansi_dark", background_color="default")
            text = highlighted.highlight(line)
            text.rstrip()
            console.print(text, soft_wrap=True)
            return
        if fence:
            self._fence = (fence.group(1), fence.group(2))
            console.print(line, style="dim", markup=False, highlight=False)
            return
        self._write(self._markdown(line) + "\n")

    def _end_table(self) -> None:
        """A table's plain rows taken back off the screen and written again, rendered."""
        if not self._table:
            return
        from rich.cells import cell_len

        width = max(shutil.get_terminal_size().columns, 1)
        rows = sum(max(cell_len(line) - 1, 0) // width + 1 for line in self._table)
        self._write(f"\x1b[{rows}A\r\x1b[J")
        self._write(self._markdown("\n".join(self._table)) + "\n")
        self._table = []

    def _markdown(self, text: str) -> str:
        """TEXT rendered as Markdown, without rich's padding to the width or the
        blank line it opens a list with."""
        from rich.markdown import Markdown

        console = self._rich()
        with console.capture() as captured:
            console.print(Markdown(inert_entities(text), hyperlinks=False))
        return "\n".join(row.rstrip(" ") for row in captured.get().split("\n")).strip("\n")

    @staticmethod
    def _as_written(line: str) -> bool:
        """LINE would render as itself and fits on one row: it can stay as streamed."""
        return AS_WRITTEN.fullmatch(line) is not None and len(line) < shutil.get_terminal_size().columns

    def _rich(self):
        if self._console is None:
            from rich.console import Console

            self._console = Console(file=_Through(self._write), width=shutil.get_terminal_size().columns,
                                    markup=False, emoji=False, highlight=False, force_terminal=True)
        return self._console


class _Through:
    """rich's output file: everything goes out through render's one writer."""

    def __init__(self, write):
        self.write = write

    def flush(self) -> None:
        pass
