"""A conversation diff (services/diffing.py) as text: ``plain`` for pipes,
``rich_renderable`` for a terminal, with changed turns compared word by word
(``words``). Every text is cleaned before printing."""

from __future__ import annotations

import re
from difflib import SequenceMatcher, unified_diff
from typing import TYPE_CHECKING

from .sanitize import clean

if TYPE_CHECKING:  # the model of a difference, from services/diffing.py
    from ..services.diffing import ConversationDiff, TurnDiff

CONTEXT = 2  # unchanged lines shown around a change in plain(); 3 in rich
_WORD = re.compile(r"(\w+|[^\w\s]+)(\s*)")  # a word or a run of punctuation, and the gap after it


def _where(pa: int | None, pb: int | None, count: int = 1) -> str:
    """``turn 5``, ``turns 5–7``, ``turn 5 (6 in B)``: A's numbering unless only in B."""
    def span(p):
        return f"{p}" if count == 1 else f"{p}–{p + count - 1}"
    first = pa if pa is not None else pb
    text = f"turn{'s' if count > 1 else ''} {span(first)}"
    return text + (f" ({span(pb)} in B)" if None not in (pa, pb) and pa != pb else "")


def _roles(roles: list[str]) -> str:
    """The roles of a run of identical turns, counted when the list would be long."""
    if len(roles) <= 6:
        return ", ".join(roles)
    counts = {r: roles.count(r) for r in dict.fromkeys(roles)}
    return ", ".join(f"{c} {r}" for r, c in counts.items())


def _summaries(diff: ConversationDiff) -> list[tuple[str, TurnDiff | None]]:
    """Header lines ("= …") and the turns to render, with runs of same turns collapsed."""
    out: list[tuple[str, TurnDiff | None]] = []
    roles = [clean(r) for r in diff.shared_roles]
    if diff.identical:
        roles += [clean(t.role) for t in diff.turns]
        total = len(roles)
        out.append(("= both conversations are empty" if not total else
                     f"= all {total} turn{'s' if total > 1 else ''} identical ({_roles(roles)})", None))
        return out
    if diff.shared:
        out.append((f"= {_where(1, 1, diff.shared)} identical ({_roles(roles)})", None))
    run: list[TurnDiff] = []
    for t in diff.turns + [None]:
        if t is not None and t.kind == "same":
            run.append(t)
            continue
        if run:
            out.append((f"= {_where(run[0].position_a, run[0].position_b, len(run))} identical "
                        f"({_roles([clean(s.role) for s in run])})", None))
            run = []
        if t is not None:
            out.append(("", t))
    return out


def _title(t: TurnDiff) -> str:
    side = {"only_a": " (only in A)", "only_b": " (only in B)"}.get(t.kind, "")
    return f"{_where(t.position_a, t.position_b)} · {clean(t.role)}{side}"


def _lines(text: str) -> list[str]:
    """Cleaned text as lines; split on \\n only, as the text will be printed."""
    lines = clean(text).split("\n")
    return lines[:-1] if len(lines) > 1 and lines[-1] == "" else lines


def plain(diff: ConversationDiff) -> str:
    """A unified-diff-like text for pipes: deterministic, one line per fact,
    every text line prefixed ' ', '-' or '+', so `grep '^+'` finds what B added."""
    out = [f"--- {clean(diff.label_a)}", f"+++ {clean(diff.label_b)}"]
    for line, t in _summaries(diff):
        if t is None:
            out.append(line)
        elif t.kind in ("only_a", "only_b"):
            mark = "-" if t.kind == "only_a" else "+"
            out.append(f"@@ {_title(t)} @@")
            out += [mark + s for s in _lines(t.a_text if mark == "-" else t.b_text)]
        else:
            hunks: list[list[str]] = []
            for s in list(unified_diff(_lines(t.a_text), _lines(t.b_text), lineterm="", n=CONTEXT))[2:]:  # no ---/+++
                if s.startswith("@@"):
                    hunks.append([s.strip("@ ")])
                else:
                    hunks[-1].append(s)
            if not hunks:  # unequal, yet the same once cleaned and split
                out += [f"@@ {_title(t)} @@", "\\ differs only in line endings or invisible characters"]
            for lines_, *body in hunks:
                out.append(f"@@ {_title(t)}{' · lines ' + lines_ if len(hunks) > 1 else ''} @@")
                out += body
    return "\n".join(out) + "\n"


def rich_renderable(diff: ConversationDiff):
    """The same diff for a terminal: headers dim, changed turns shown whole with
    removed words struck in red and added words in green (long unchanged
    stretches folded), one-sided turns in red or green."""
    from rich.console import Group
    from rich.text import Text

    parts = [Text(f"--- {clean(diff.label_a)}", style="bold red"),
             Text(f"+++ {clean(diff.label_b)}", style="bold green")]
    for line, t in _summaries(diff):
        if t is None:
            parts.append(Text(line, style="dim"))
            continue
        mark = {"changed": ("~ ", "yellow"), "only_a": ("- ", "red"), "only_b": ("+ ", "green")}[t.kind]
        parts.append(Text.assemble("\n", mark, (_title(t), "dim")))
        if t.kind == "only_a":
            parts.append(Text(clean(t.a_text), style="red"))
        elif t.kind == "only_b":
            parts.append(Text(clean(t.b_text), style="green"))
        else:
            ops = words(clean(t.a_text), clean(t.b_text))
            body = Text()
            for n, (op, s) in enumerate(ops):
                if op != "=":
                    body.append(s, style="red strike" if op == "-" else "green")
                    continue
                for piece, folded in _fold(s, head=n > 0, tail=n + 1 < len(ops)):
                    body.append(piece, style="dim" if folded else None)
            if all(op == "=" for op, _ in ops):
                body.append("\n(differs only in line endings or invisible characters)", style="dim")
            parts.append(body)
    return Group(*parts)


def _fold(s: str, head: bool, tail: bool, keep: int = 3) -> list[tuple[str, bool]]:
    """An unchanged stretch with its middle lines replaced by a "⋯ N lines" marker.
    ``head``/``tail``: a change precedes/follows, so keep lines next to it."""
    lines = s.split("\n")  # lines[0] ends the line of the previous change, lines[-1] starts the next
    first, last = (keep + 1 if head else 0), (keep + 1 if tail else 0)
    hidden = len(lines) - first - last
    if hidden < 2:
        return [(s, False)]
    return [("\n".join(lines[:first]) + "\n" if first else "", False),
            (f"⋯ {hidden} unchanged lines ⋯" + ("\n" if last else ""), True),
            ("\n".join(lines[-last:]) if last else "", False)]


def words(a_text: str, b_text: str) -> list[tuple[str, str]]:
    """Word-level ops ("=", "-", "+") such that the "=" and "-" parts join to
    ``a_text`` and the "=" and "+" parts to ``b_text``, exactly.

    Lines are matched first and words only inside replaced line blocks: that
    keeps long answers fast and stops a common word from stitching two
    unrelated paragraphs together. Words are matched without the whitespace
    after them (a " " token would match everywhere and make the matcher
    quadratic); a changed gap between two equal words shows as its own change."""
    ops: list[tuple[str, str]] = []
    la, lb = a_text.splitlines(keepends=True), b_text.splitlines(keepends=True)
    for op, i1, i2, j1, j2 in SequenceMatcher(None, la, lb, autojunk=False).get_opcodes():
        old, new = "".join(la[i1:i2]), "".join(lb[j1:j2])
        if op == "equal":
            ops.append(("=", old))
        elif op == "replace":
            ta, tb = _tokens(old), _tokens(new)
            # exact up to about a thousand words a side; past that difflib's popularity heuristic keeps it fast
            keys_a, keys_b = [w for w, _ in ta], [w for w, _ in tb]
            matcher = SequenceMatcher(None, keys_a, keys_b, autojunk=len(ta) * len(tb) > 1_000_000)
            for wop, k1, k2, m1, m2 in matcher.get_opcodes():
                if wop != "equal":
                    ops += [("-", "".join(w + g for w, g in ta[k1:k2])), ("+", "".join(w + g for w, g in tb[m1:m2]))]
                    continue
                for (word, gap_a), (_, gap_b) in zip(ta[k1:k2], tb[m1:m2]):
                    ops += [("=", word)] + ([("=", gap_a)] if gap_a == gap_b else [("-", gap_a), ("+", gap_b)])
        else:
            ops += [("-", old), ("+", new)]
    return _coalesce([(op, s) for op, s in ops if s])


def _tokens(text: str) -> list[tuple[str, str]]:
    """(word, gap) pairs that join back to ``text``; the first has an empty word and the leading gap."""
    lead = re.match(r"\s*", text).end()
    return [("", text[:lead])] + _WORD.findall(text, lead)


def _coalesce(ops: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Merge neighbours into alternating "=" and change runs ("-" before "+")."""
    out: list[tuple[str, str]] = []

    def put(op: str, s: str) -> None:
        if s and out and out[-1][0] == op:
            out[-1] = (op, out[-1][1] + s)
        elif s:
            out.append((op, s))

    gone = added = ""
    for op, s in ops + [("=", "")]:
        if op == "-":
            gone += s
        elif op == "+":
            added += s
        else:
            n = 0
            while n < min(len(gone), len(added)) and gone[-1 - n] == added[-1 - n] and gone[-1 - n].isspace():
                n += 1
            put("-", gone[:len(gone) - n])
            put("+", added[:len(added) - n])
            put("=", gone[len(gone) - n:] + s)
            gone = added = ""
    return out
