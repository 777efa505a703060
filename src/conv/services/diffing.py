"""What changed between two conversations (a fork and its parent) or two
versions of one (an answer before and after a retry).

``compare`` builds one model of the difference, ``to_dict`` gives it as data
for --json, and terminal/diff.py renders it for pipes and terminals. Forks
share their beginning, so the common prefix is collapsed to one line and only
the turns from the divergence on are shown. Nothing here touches git or the
terminal.
"""

from difflib import SequenceMatcher
from typing import TYPE_CHECKING

from ..records import asdict, dataclass, field

if TYPE_CHECKING:  # only .role and .content are read
    from ..format.model import Turn



@dataclass
class TurnDiff:
    """One aligned step after the shared prefix. Positions are 1-based in each
    conversation; position and text are None on the side a turn is missing
    from. Texts stay raw as stored (JSON wants them exact); renderers clean them."""

    kind: str  # "same", "changed", "only_a", "only_b"
    position_a: int | None
    position_b: int | None
    role: str
    a_text: str | None
    b_text: str | None


@dataclass
class ConversationDiff:
    label_a: str
    label_b: str
    shared: int  # turns equal position by position from the start
    shared_roles: list[str] = field(default_factory=list)
    turns: list[TurnDiff] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return all(t.kind == "same" for t in self.turns)


def compare(a_turns: list["Turn"], b_turns: list["Turn"], label_a: str = "A", label_b: str = "B") -> ConversationDiff:
    """Align two transcripts. After the common prefix, turns are matched on
    (role, content) so an inserted or deleted exchange does not shift every
    later turn into a "changed" pair; what is left unmatched is paired by role,
    so a changed turn always compares a question with a question."""
    ka = [(t.role, t.content) for t in a_turns]
    kb = [(t.role, t.content) for t in b_turns]
    n = 0
    while n < min(len(ka), len(kb)) and ka[n] == kb[n]:
        n += 1
    diff = ConversationDiff(label_a, label_b, n, [role for role, _ in ka[:n]])
    matcher = SequenceMatcher(None, ka[n:], kb[n:], autojunk=False)  # autojunk would drop repeated "ok"s
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            diff.turns += [TurnDiff("same", n + i + 1, n + j1 + (i - i1) + 1, ka[n + i][0], ka[n + i][1], ka[n + i][1])
                           for i in range(i1, i2)]
        else:
            diff.turns += _pair(ka[n + i1:n + i2], kb[n + j1:n + j2], n + i1 + 1, n + j1 + 1)
    return diff


def _pair(a: list[tuple[str, str]], b: list[tuple[str, str]], pa: int, pb: int) -> list[TurnDiff]:
    """A block of unmatched turns: same-role runs become "changed" pairs, the rest one-sided."""
    out = []
    roles = SequenceMatcher(None, [r for r, _ in a], [r for r, _ in b], autojunk=False)
    for op, i1, i2, j1, j2 in roles.get_opcodes():
        if op == "equal":
            out += [TurnDiff("changed", pa + i, pb + j, a[i][0], a[i][1], b[j][1])
                    for i, j in zip(range(i1, i2), range(j1, j2))]
        else:
            out += [TurnDiff("only_a", pa + i, None, a[i][0], a[i][1], None) for i in range(i1, i2)]
            out += [TurnDiff("only_b", None, pb + j, b[j][0], None, b[j][1]) for j in range(j1, j2)]
    return out


def to_dict(diff: ConversationDiff) -> dict:
    """For --json: the model as data, texts as stored (JSON escapes control
    characters; a consumer diffs or displays them as it likes)."""
    return {"a": diff.label_a, "b": diff.label_b, "identical": diff.identical, "shared": diff.shared,
            "shared_roles": diff.shared_roles, "turns": [asdict(t) for t in diff.turns]}
