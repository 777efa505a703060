"""The terminal picker of ``conv resume``: type to filter (fuzzy, and a
search of every turn, see services/resume.py; the matching turn previewed
under the list), Up/Down or Ctrl-P/Ctrl-N to move, PageUp/PageDown a page,
Home/End to the first and the last, Enter to choose, Esc or Ctrl-G to
cancel, Ctrl-C to interrupt. Each row says the tool and the project.

It reads and draws on /dev/tty, so stdout stays clean (``conv resume | cat``
picks as well), draws again when the terminal is resized, and puts the
terminal back as it found it however it ends (a choice, a cancel, Ctrl-C,
SIGTERM, SIGHUP, an exception). Every piece of conversation text it draws
goes through ``sanitize.clean``: a title cannot drive the terminal.
"""

from __future__ import annotations

import codecs
import os
import re
import select
import signal
import sys
import termios
import unicodedata
from collections.abc import Callable
from contextlib import contextmanager
from itertools import groupby
from typing import TYPE_CHECKING

from ..errors import Interrupted
from ..signals import terminal_loss_interrupts
from .render import ago
from .sanitize import clean

if TYPE_CHECKING:  # what conv resume offers and how it ranks them (services/resume.py)
    from ..services.resume import Candidate, Ranked

    Rank = Callable[[str, list[Candidate]], list[Ranked]]

ROWS = 10
ESC_WAIT = 0.05  # seconds: a lone Esc followed by nothing this soon is the Esc key, not an arrow key's start
QUERY_WORDS = 64  # the most words searched, as conv search takes
SNIPPET_BEFORE = 12  # characters of context shown before a match in the text

KEYS = {
    "\x1b[A": "up", "\x1bOA": "up", "\x10": "up",
    "\x1b[B": "down", "\x1bOB": "down", "\x0e": "down",
    "\x1b[5~": "page up", "\x1b[6~": "page down",
    "\x1b[H": "home", "\x1bOH": "home", "\x1b[1~": "home", "\x1b[7~": "home",
    "\x1b[F": "end", "\x1bOF": "end", "\x1b[4~": "end", "\x1b[8~": "end",
    "\r": "enter", "\n": "enter",
    "\x1b": "cancel", "\x1b\x1b": "cancel", "\x07": "cancel",
    "\x03": "interrupt",
    "\x7f": "backspace", "\x08": "backspace",
    "\x15": "clear",  # Ctrl-U
}
STYLES = {"id": ("\x1b[36m", "\x1b[39m"), "match": ("\x1b[32m", "\x1b[39m"),
          "dim": ("\x1b[2m", "\x1b[22m"), "bold": ("\x1b[1m", "\x1b[0m")}
NO_COLOR_STYLES = {"id": ("", ""), "match": ("\x1b[4m", "\x1b[24m")}  # matches underlined instead
_TOKEN = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1bO.|\x1b.|.", re.S)  # a key: a sequence, Alt+key, or a character
MOVES = ("up", "down", "page up", "page down", "home", "end")
WHERE_WIDTH = 24  # columns at most for the tool and project of a row
_UNFINISHED = re.compile(rb"\x1b(\[[0-?]*[ -/]*|O)?$")  # bytes that may be the start of a longer key


def available() -> bool:
    """A person at a terminal: stdin or stdout is one (the other may be a pipe), and /dev/tty opens."""
    if not (sys.stdin.isatty() or sys.stdout.isatty()):
        return False
    try:
        os.close(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
    except OSError:
        return False
    return True


def pick(found: list[Candidate], rank: Rank, query: str = "", total: int | None = None) -> Candidate | None:
    """The candidate chosen, or None when cancelled (Ctrl-C raises Interrupted);
    ``rank(query, found)`` orders them as the query is typed; ``total``: the
    conversations there are (the count's denominator: the search reaches them all)."""
    fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    try:
        with terminal_loss_interrupts(), _raw(fd), _resizes() as resized:
            return _Picker(fd, found, query, rank, resized, total).run()
    finally:
        os.close(fd)


@contextmanager
def _resizes():
    """A descriptor that becomes readable when the terminal is resized (SIGWINCH, through Python's wakeup fd)."""
    read, write = os.pipe()
    os.set_blocking(read, False)
    os.set_blocking(write, False)
    handler = signal.signal(signal.SIGWINCH, lambda *_: None)
    wakeup = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    try:
        yield read
    finally:
        signal.set_wakeup_fd(wakeup)
        signal.signal(signal.SIGWINCH, handler)
        os.close(read)
        os.close(write)


@contextmanager
def _raw(fd: int):
    """Keys one by one, unechoed; Ctrl-C, Ctrl-Z, Ctrl-S arrive as keys."""
    saved = termios.tcgetattr(fd)
    mode = termios.tcgetattr(fd)
    mode[0] &= ~(termios.ICRNL | termios.IXON)
    mode[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG | termios.IEXTEN)
    mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
    termios.tcsetattr(fd, termios.TCSADRAIN, mode)  # not FLUSH: keys typed ahead are kept
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


class _Picker:
    def __init__(self, fd: int, found: list[Candidate], query: str, rank: Rank, resized: int | None = None,
                 total: int | None = None):
        self.fd, self.found, self.query = fd, found, " ".join(clean(query).split())
        self.rank, self.resized, self.total = rank, resized, max(total or 0, len(found))
        self.rows = ROWS  # rows shown at the last draw: a page
        self.ranked: list[Ranked] = rank(self.query, found)
        self.selected = self.top = 0
        self.styles = {**STYLES, **(NO_COLOR_STYLES if os.environ.get("NO_COLOR") else {})}
        self.decoder = codecs.getincrementaldecoder("utf-8")("ignore")

    def run(self) -> Candidate | None:
        try:
            while True:
                self._draw()
                keys, typed = self._keys(), False
                for n, key in enumerate(keys):
                    if key == "enter" and n + 1 < len(keys):
                        key = " "  # a newline inside pasted text is a space: only a key pressed alone chooses
                    if (key in MOVES or key == "enter") and typed:
                        self._rerank()  # what was typed ahead, searched once
                        typed = False
                    if key == "enter" and self.ranked:
                        return self.ranked[self.selected].candidate
                    if key == "cancel":
                        return None
                    if key == "interrupt":
                        raise Interrupted(signal.SIGINT)
                    typed = self._apply(key) or typed
                if typed:
                    self._rerank()
        finally:
            self._write("\r\x1b[J")  # the picker's lines go; the cursor is back where it started

    # -- keys ------------------------------------------------------------------
    def _keys(self) -> list[str]:
        """The keys of the next read: named ones (see KEYS) or printable characters."""
        ready = select.poll()  # not select.select, which refuses a descriptor past 1023
        ready.register(self.fd, select.POLLIN)
        if self.resized is not None:
            ready.register(self.resized, select.POLLIN)
        if not any(fd == self.fd for fd, _ in ready.poll()):
            os.read(self.resized, 4096)  # readable, so it does not wait: the signals' bytes, all of them
            return []  # resized (or another signal, its handler run): drawn again
        data = os.read(self.fd, 1024)
        if not data:
            raise Interrupted(signal.SIGHUP)  # the terminal went away
        more = select.poll()
        more.register(self.fd, select.POLLIN)
        while _UNFINISHED.search(data) and more.poll(ESC_WAIT * 1000):
            data += os.read(self.fd, 1024)
        keys = []
        for token in _TOKEN.findall(self.decoder.decode(data)):
            if token in KEYS:
                keys.append(KEYS[token])
            elif len(token) == 1 and token.isprintable():
                keys.append(token)
        return keys

    def _apply(self, key: str) -> bool:
        """The key's effect; whether it changed the query (searched once the keys read are all applied)."""
        if key in MOVES:
            step = {"up": -1, "down": 1, "page up": -self.rows, "page down": self.rows,
                    "home": -len(self.ranked), "end": len(self.ranked)}[key]
            self.selected = min(max(self.selected + step, 0), max(len(self.ranked) - 1, 0))
        elif key in ("backspace", "clear") or len(key) == 1:
            self.query = "" if key == "clear" else self.query[:-1] if key == "backspace" else self.query + key
            return True
        return False

    def _rerank(self) -> None:
        """The query's results (its first QUERY_WORDS words: a pasted page is not searched word by word)."""
        self.ranked = self.rank(" ".join(self.query.split(" ")[:QUERY_WORDS]), self.found)
        self.selected = self.top = 0

    # -- drawing ---------------------------------------------------------------
    def _draw(self) -> None:
        """The prompt line and up to ROWS rows below it, in one write; the
        cursor is left after the query."""
        size = os.get_terminal_size(self.fd)
        width, rows = max(size.columns - 1, 20), max(min(ROWS, size.lines - 1), 1)
        self.rows = rows
        self.top = min(max(self.top, self.selected - rows + 1), self.selected)
        shown = self.ranked[self.top: self.top + rows]
        query = self.query
        while _width(query) > width // 2:
            query = query[1:]  # a long query shows its end
        count = f"  {len(self.ranked)}/{self.total}"
        lines = [f"> {query}" + self._paint("dim", count if 2 + _width(query) + len(count) <= width else "")]
        times = [ago(r.candidate.updated) for r in shown]
        id_width = max((len(r.candidate.short) for r in shown), default=0)
        time_width = max(map(len, times), default=0)
        where_width = min(max((_width(r.candidate.where) for r in shown), default=0), WHERE_WIDTH,
                          max(width - 60, 0))  # the title keeps 40 columns or so
        for n, (ranked, when) in enumerate(zip(shown, times), self.top):
            lines.append(self._row(ranked, when, (id_width, time_width, where_width), width, n == self.selected))
        preview = self.ranked[self.selected].candidate.preview if self.ranked else ""
        if preview and len(lines) < size.lines:  # the turn the search matched, under the list
            marks = self.ranked[self.selected].marks.get("first", [])
            at = len(preview) - len(self.ranked[self.selected].candidate.first)
            lines.append(self._paint("dim", "  " + _fit(preview, [m + at for m in marks], width - 2, self._match)[0]))
        out = "\r\x1b[J" + "\r\n".join(lines)
        if len(lines) > 1:
            out += f"\x1b[{len(lines) - 1}A"
        out += f"\r\x1b[{2 + _width(query)}C"
        self._write(out)

    def _row(self, ranked: Ranked, when: str, widths: tuple[int, int, int], width: int, selected: bool) -> str:
        """``> *k3f9x2  5m ago  claude-code · api  title  …text``: matched
        characters highlighted, text from the first question or last turn when
        a word matched there; the tool and project when there is room."""
        c = ranked.candidate
        id_width, time_width, where_width = widths
        head = ("> " if selected else "  ") + ("*" if c.current else " ")
        room = width - len(head) - id_width - time_width - 4
        line = head + self._paint("id", c.short.ljust(id_width)) + "  " + when.rjust(time_width) + "  "
        if where_width:
            where, used = _fit(c.where, [], where_width, self._match)
            line += self._paint("dim", where) + " " * (where_width - used + 2)
            room -= where_width + 2
        title, used = _fit(c.title or "(untitled)", ranked.marks.get("title", []), room, self._match)
        line += title
        if c.status != "active" and room - used > 10:  # paused or done: worth knowing before taking it up
            line += self._paint("dim", f" [{c.status}]")
            used += len(c.status) + 3
        for name in ("first", "last", "summary"):
            marks = ranked.marks.get(name)
            if marks and room - used > 8:
                start = max(marks[0] - SNIPPET_BEFORE, 0)
                text = ("…" if start else "") + getattr(c, name)[start:]
                shifted = [m - start + (1 if start else 0) for m in marks]
                snippet, _ = _fit(text, shifted, room - used - 2, self._match)
                line += "  " + self._paint("dim", snippet)
                break
        else:
            if c.summary and room - used > 8:  # nothing matched in the text: what the conversation came to
                line += "  " + self._paint("dim", _fit(c.summary, [], room - used - 2, self._match)[0])
        return self._paint("bold", line) if selected else line

    def _match(self, text: str) -> str:
        return self._paint("match", text)

    def _paint(self, style: str, text: str) -> str:
        on, off = self.styles[style]
        return f"{on}{text}{off}" if text else text

    def _write(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        while data:
            data = data[os.write(self.fd, data):]


def _fit(text: str, marks: list[int], room: int, mark) -> tuple[str, int]:
    """``text`` cleaned, cut to ``room`` columns (with "…"), each run of
    characters at ``marks`` passed through ``mark``; and the columns it takes."""
    if room < 2:
        return "", 0
    text, end, used = clean(text), 0, 0
    while end < len(text) and used + _width(text[end]) <= room - (end < len(text) - 1):
        used += _width(text[end])
        end += 1
    marked, out = set(marks), []
    for on, group in groupby(enumerate(text[:end]), lambda item: item[0] in marked):
        part = "".join(ch for _, ch in group)
        out.append(mark(part) if on else part)
    if end < len(text):
        out.append("…")
        used += 1
    return "".join(out), used


def _width(text: str) -> int:
    """Columns on a terminal: wide East Asian characters take two, combining marks none."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
