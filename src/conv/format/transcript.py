"""The transcript ``conv edit`` opens in $EDITOR: a whole conversation as one
Markdown file (``render``), and the reading of the saved file back into what
changed (``parse``). Pure: no store, no side effects.

::

    <!--
      conv edit k3f9x2ab7q4m: … how to edit …
    -->
    title: explain git rebase

    <!-- conv turn 1 · user · 20261121-175520.123-a7k2-user -->
    explain git rebase

    <!-- conv turn 2 · assistant · 20261121-175523.871-q0zd-assistant -->
    Rebase replays your commits…

- Before the first marker: comments (``<!--`` … ``-->``), blank lines and one
  ``title: TEXT`` line (surrounding blanks ignored).
- A marker line is ``<!-- conv turn N · ROLE · NAME -->``: N is the turn's
  position in the conversation as rendered (never renumbered after a
  deletion), ROLE its role, NAME its file name. Any line that starts (after
  blanks) with ``<!--`` and ``conv`` is read as a marker, so one that is not
  exactly a marker of this conversation, in its order, is an error and never
  silently becomes content.
- A turn's block is its marker line, its content, a line break and a blank
  line. Reading takes the text between a marker line and the next (or the end
  of the file) and removes that ``"\\n\\n"`` from its end, or ``"\\n"`` when only
  that is there. So content may end with newlines or without, be empty, or
  hold lines of ``---``, headings and HTML comments, and comes back exactly.
- Content lines that would read as markers (any backslashes, blanks, ``<!--``,
  blanks, ``conv``; case ignored) are written with one more backslash in front
  and read with one less, so ``\\<!-- conv…`` in the file is ``<!-- conv…`` in
  the turn.
- A block that is gone (marker line and all) is a deleted turn. Turns cannot be
  added, repeated or moved.

Lines are split on ``"\\n"`` only, so ``"\\r"`` and other line separators inside
content stay content.
"""

import re

from ..errors import UsageError
from ..records import dataclass, field
from .model import Conversation, Turn

HEADER = """\
<!--
  conv edit {id}: save and quit to apply; an unchanged file changes nothing.
  - Change a turn's text between its marker line ("conv turn N · role · name")
    and the next one. Keep the marker lines exactly as they are.
  - Delete a turn by deleting its whole block: marker line and text.
  - Turns cannot be added or moved. The title line can be edited.
  - A text line that starts with "<!-- conv" is shown, and must be written,
    with one more backslash in front ("\\<!-- conv"); that one is not saved.
  - A file that no longer reads is refused with its line number, and nothing
    is saved.
-->
"""

MARKER_LIKE = re.compile(r"\s*<!--\s*conv", re.I)  # read as a marker, never as content
ESCAPED = re.compile(r"\\+\s*<!--\s*conv", re.I)  # content with one backslash added
NEEDS_ESCAPE = re.compile(r"\\*\s*<!--\s*conv", re.I)  # content that gets one added
MARKER = re.compile(r"<!-- conv turn (\d+) · (\S+) · (\S+) -->")
TITLE = re.compile(r"\s*title\s*:(.*)", re.I | re.S)
KEEP_MARKERS = 'Keep marker lines exactly as they were; write a text line starting with "<!-- conv" as "\\<!-- conv"'


@dataclass
class Edit:
    title: str | None = None  # the new title, or None if unchanged
    changed: dict[str, str] = field(default_factory=dict)  # turn name -> new content
    deleted: list[str] = field(default_factory=list)  # names of turns whose block was removed

    @property
    def unchanged(self) -> bool:
        return self.title is None and not self.changed and not self.deleted


def marker(position: int, turn: Turn) -> str:
    return f"<!-- conv turn {position} · {turn.role} · {turn.name} -->"


def _shown_title(title: str) -> str:
    return title.replace("\r", " ").replace("\n", " ")


def render(conv: Conversation) -> str:
    parts = [HEADER.format(id=conv.id), f"title: {_shown_title(conv.title)}\n", "\n"]
    for position, turn in enumerate(conv.turns, 1):
        lines = turn.content.split("\n")
        content = "\n".join("\\" + line if NEEDS_ESCAPE.match(line) else line for line in lines)
        parts += [marker(position, turn), "\n", content, "\n\n"]
    return "".join(parts)


def _error(number: int, what: str, hint: str) -> UsageError:
    return UsageError(f"transcript line {number}: {what}", hint)


def parse(text: str, conv: Conversation) -> Edit:
    """What the saved transcript changes; UsageError naming the line if it does not read."""
    lines = re.findall(r"[^\n]*\n|[^\n]+\Z", text.removeprefix("\ufeff"))  # ends kept
    first = next((i for i, line in enumerate(lines) if MARKER_LIKE.match(line)), len(lines))
    title = _read_preamble(lines[:first])
    shown = _shown_title(conv.title).strip()

    positions = {turn.name: i for i, turn in enumerate(conv.turns)}
    seen: dict[str, int] = {}  # turn name -> line number of its marker
    blocks: list[tuple[str, list[str]]] = []
    for number, line in enumerate(lines[first:], first + 1):
        if ESCAPED.match(line):
            blocks[-1][1].append(line[1:])
        elif not MARKER_LIKE.match(line):
            blocks[-1][1].append(line)
        else:
            name = _read_marker(number, line, conv, positions, seen)
            seen[name] = number
            blocks.append((name, []))

    edit = Edit(title=None if title == shown else title)
    for name, body in blocks:
        content = "".join(body)
        content = content[:-2] if content.endswith("\n\n") else content.removesuffix("\n")
        if content != conv.turns[positions[name]].content:
            edit.changed[name] = content
    edit.deleted = [turn.name for turn in conv.turns if turn.name not in seen]
    return edit


def _read_preamble(lines: list[str]) -> str:
    """The title from the lines before the first marker (comments and blanks aside)."""
    title, title_line, comment_line = None, 0, 0
    for number, line in enumerate(lines, 1):
        if comment_line:
            comment_line = 0 if "-->" in line else comment_line
        elif line.lstrip().startswith("<!--"):
            comment_line = 0 if "-->" in line.lstrip()[4:] else number
        elif not line.strip():
            continue
        elif title_line:
            raise _error(number, "text after the title line, before the first turn",
                         f"Only the title goes above the first marker (line {title_line} is the title)")
        elif match := TITLE.match(line):
            title, title_line = match.group(1).strip(), number
        elif line.strip().lower().startswith("title"):
            raise _error(number, "malformed title line", 'Write it as "title: TEXT"')
        else:
            raise _error(number, "text before the title line",
                         "Only comments and the title line go above the first marker")
    if comment_line:
        raise _error(comment_line, "comment not closed before the first turn", 'End it with "-->"')
    if title is None:
        raise _error(len(lines) + 1, "no title line before the first turn",
                     'Add a line "title: TEXT" above the first marker')
    return title


def _read_marker(number: int, line: str, conv: Conversation, positions: dict, seen: dict) -> str:
    """The turn a marker line names, checked against the conversation and the markers before it."""
    match = MARKER.fullmatch(line.strip())
    if not match:
        known = [(i, t) for i, t in enumerate(conv.turns, 1) if t.name in line]
        hint = f"Restore it as {marker(*known[0])}" if len(known) == 1 else KEEP_MARKERS
        raise _error(number, "malformed turn marker", hint)
    position, role, name = match.groups()
    if name not in positions:
        raise _error(number, f"marker names turn {name}, which is not in this conversation",
                     "Restore the marker line as it was, or delete the whole block")
    if name in seen:
        raise _error(number, f"turn {name} appears twice (first at line {seen[name]})", "Keep one block per turn")
    index = positions[name]
    expected = marker(index + 1, conv.turns[index])
    if (position, role) != (str(index + 1), conv.turns[index].role):
        raise _error(number, f"marker says turn {position} · {role}, but {name} is turn {index + 1} · "
                     f"{conv.turns[index].role}", f"Restore it as {expected}")
    last = next(reversed(seen), None)  # markers so far are in order: the last is the latest
    if last is not None and positions[last] > index:
        raise _error(number,
                     f"turn {index + 1} is out of order (after turn {positions[last] + 1} at line {seen[last]})",
                     "Turns cannot be moved: put the blocks back in their order")
    return name
