"""A tool's messages as a tree (each names the one before it) read as lines
of conversation, each with a name that stays its own as the tool appends.

A tool that lets the user go back (Claude Code's rewind, ChatGPT's edited
question) keeps every line in one tree. conv keeps the first line as the
conversation and each later one as a fork from where it went back, as it
does everywhere (the older line keeps the conversation): depth first, the
first answer to every message first, so a line is named by the message it
branched off with, which nothing the tool appends later changes. A line
that goes on gets its new turns, a new branch becomes a new fork, and the
line the tool shows as current never takes another line's name.
"""

from collections.abc import Hashable

from ..format.words import plural
from ..records import dataclass, field

MOST_LINES = 200  # forks of one conversation: each holds its whole history


@dataclass
class Lines:
    """The lines of a tree: ``ends`` (the last message of each, and its name:
    the message it branched off with, None for the first line), the first
    line and the ``MOST_LINES`` branched off last; how many others were left
    out, and how many loops of parents were cut."""

    ends: list = field(default_factory=list)
    left_out: int = 0
    cut: int = 0
    above: dict = field(default_factory=dict)  # each message's parent on its line

    def path(self, end: Hashable) -> list:
        """The messages of the line ending at ``end``, the first first."""
        out = [end]
        while out[-1] in self.above:
            out.append(self.above[out[-1]])
        return out[::-1]


def lines(parent_of: dict[Hashable, Hashable | None], order: list) -> Lines:
    """The lines of the messages in ``order`` (as the tool wrote them, which
    orders each one's children); ``parent_of`` names each one's parent (None,
    itself, or one not in it: a root). What no root reaches is on a loop of
    parents: it is cut where the loop was first written and goes on as a line
    of its own."""
    children: dict = {}
    for node in order:
        parent = parent_of.get(node)
        children.setdefault(parent if parent in parent_of and parent != node else None, []).append(node)
    roots = children.get(None, [])
    found = Lines()
    seen: set = set()
    for start in [*roots, *order]:
        if start not in seen:
            found.cut += start not in roots
            _walk(start, start if found.ends else None, children, seen, found)
    if len(found.ends) > MOST_LINES + 1:
        written = {node: n for n, node in enumerate(order)}
        first, *others = found.ends
        kept = set(sorted(others, key=lambda end: written[end[1]])[-MOST_LINES:])
        found.left_out = len(others) - len(kept)
        found.ends = [first, *(end for end in others if end in kept)]
    return found


def _walk(start, name, children: dict, seen: set, found: Lines) -> None:
    """Depth first from ``start``, on the line ``name``d, without recursion: a
    line ends at a message with no child not seen yet; a later answer to a
    message starts a line of its own."""
    stack = [(start, name)]
    while stack:
        node, name = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        below = [child for child in children.get(node, ()) if child not in seen]
        if not below:
            found.ends.append((node, name))
            continue
        for child in below:
            found.above[child] = node
        stack.extend((child, child) for child in reversed(below[1:]))
        stack.append((below[0], name))


def said_of(found: Lines, what: str) -> list[str]:
    """The lines saying what of ``what``'s tree was left out or cut."""
    said = []
    if found.left_out:
        said.append(f"{what} has {len(found.ends) + found.left_out:,} branches: the first and the {MOST_LINES} "
                    "begun last kept as forks, the others left out")
    if found.cut:
        said.append(f"{what}: {plural(found.cut, 'loop')} of parent links, each cut where it "
                    "was first written")
    return said
