"""The terminal picker of ``conv resume``: type to filter (fuzzy, and a
search of every turn, see services/resume.py; the matching turn previewed
under the list), Up/Down or Ctrl-P/Ctrl-N to move, Enter to choose, Esc or
Ctrl-G to cancel, Ctrl-C to interrupt.

It reads and draws on /dev/tty, so stdout stays clean, and puts the terminal
back as it found it however it ends (a choice, a cancel, Ctrl-C, SIGTERM,
SIGHUP, an exception). Every piece of conversation text it draws goes through
``sanitize.clean``: a title cannot drive the terminal.
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
_UNFINISHED = re.compile(rb"\x1b(\[[0-?]*[ -/]*|O)?$")  # bytes that may be the start of a longer key


def available() -> bool:
    """A person at a terminal: both stdin and stdout are one."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def pick(found: list[Candidate], rank: Rank, query: str = "") -> Candidate | None:
    """The candidate chosen, or None when cancelled (Ctrl-C raises Interrupted);
    ``rank(query, found)`` orders them as the query is typed."""
    fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    try:
        with terminal_loss_interrupts(), _raw(fd):
            return _Picker(fd, found, query, rank).run()
    finally:
        os.close(fd)


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
    def __init__(self, fd: int, found: list[Candidate], query: str, rank: Rank):
        self.fd, self.found, self.query = fd, found, " ".join(clean(query).split())
        self.rank = rank
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
                    if key in ("up", "down", "enter") and typed:
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
        data = os.read(self.fd, 1024)
        if not data:
            raise Interrupted(signal.SIGHUP)  # the terminal went away
        more = select.poll()  # not select.select, which refuses a descriptor past 1023
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
        if key == "up":
            self.selected = max(self.selected - 1, 0)
        elif key == "down":
            self.selected = min(self.selected + 1, max(len(self.ranked) - 1, 0))
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
        self.top = min(max(self.top, self.selected - rows + 1), self.selected)
        shown = self.ranked[self.top: self.top + rows]
        query = self.query
        while _width(query) > width // 2:
            query = query[1:]  # a long query shows its end
        count = f"  {len(self.ranked)}/{len(self.found)}"
        lines = [f"> {query}" + self._paint("dim", count if 2 + _width(query) + len(count) <= width else "")]
        times = [ago(r.candidate.updated) for r in shown]
        id_width = max((len(r.candidate.short) for r in shown), default=0)
        time_width = max(map(len, times), default=0)
        for n, (ranked, when) in enumerate(zip(shown, times), self.top):
            lines.append(self._row(ranked, when, id_width, time_width, width, n == self.selected))
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

    def _row(self, ranked: Ranked, when: str, id_width: int, time_width: int, width: int, selected: bool) -> str:
        """``> *k3f9x2  5m ago  title  …text``: matched characters highlighted,
        text from the first question or last turn when a word matched there."""
        c = ranked.candidate
        head = ("> " if selected else "  ") + ("*" if c.current else " ")
        room = width - len(head) - id_width - time_width - 4
        title, used = _fit(c.title or "(untitled)", ranked.marks.get("title", []), room, self._match)
        line = head + self._paint("id", c.short.ljust(id_width)) + "  " + when.rjust(time_width) + "  " + title
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
