"""``conv resume``: which conversations to offer, and how well typed text
matches each one. Pure logic apart from reading the index, so the ranking is
tested without a terminal (the picker itself is terminal/picker.py).

Matching is fzf-like over the latest conversations: every word typed must
appear, in order but not necessarily adjacent (a subsequence), in the title,
the first question or the last turn; consecutive letters and letters that
start a word score higher. As you type, every turn of every conversation is
searched too (``searcher``: the index's full-text search, the word being typed
taken as a prefix), and the turn that matched is previewed.
"""

import re
from collections.abc import Callable

from ..errors import ConvError, RefError
from ..home.secrets import outward
from ..records import dataclass, replace
from .current import current
from .current import use as make_current
from .workspace import Workspace

LIMIT = 300  # the most recently updated conversations offered
TEXT_CHARS = 300  # of the first question and of the last turn

FIELDS = ("title", "first", "last", "summary")

# fzf's constants: a match is worth 16, a gap costs 3 then 1 a character, a
# match that starts a word earns 8 (twice that for a word's first letter).
MATCH, GAP_START, GAP_EXTEND = 16, -3, -1
BOUNDARY, CAMEL, CONSECUTIVE, FIRST_LETTER = 8, 7, 4, 2
IN_TITLE = 16  # a word found in the title outweighs the same word in the text
MAX_STARTS = 16  # alignments tried per word and field: enough, and fast per keystroke

TIER_TITLE, TIER_TEXT, TIER_FUZZY = 2, 1, 0


@dataclass
class Candidate:
    id: str
    short: str
    updated: str
    current: bool
    title: str  # these four are one line each, cleaned: what is matched is what is shown
    first: str
    last: str
    summary: str = ""
    status: str = "active"
    preview: str = ""  # the turn a full-text search matched: "turn 3 (assistant): …", one line
    where: str = ""  # the tool it is from and its project's folder: "claude-code · api"

    def __post_init__(self):
        self.lower = {name: _lower(getattr(self, name)) for name in FIELDS}  # each field lower-cased, computed once


@dataclass
class Ranked:
    candidate: Candidate
    score: int
    tier: int  # TIER_TITLE: every word as typed in the title; TIER_TEXT: in some field; else fuzzy only
    marks: dict[str, list[int]]  # field -> matched character positions, for highlighting


def candidates(ws: Workspace, printable: Callable[[str], str], limit: int = LIMIT) -> list[Candidate]:
    """The conversations to choose from, most recently updated first (an
    empty store offers nothing), their texts made ``printable`` (the
    terminal's cleaning: what is matched is what is shown) and one line each."""
    line = lambda text: " ".join(printable(text).split())  # noqa: E731

    rows = ws.index.refresh().recent_with_text(limit, TEXT_CHARS)
    if not rows:
        raise RefError("no conversations to resume yet", 'Ask first: conv ask "…"')
    now = current(ws).conv_id
    return [
        Candidate(row.id, ws.index.queries.short_id(row.id), row.updated, row.id == now,
                  line(outward(row.title)), line(outward(first)), line(outward(last)) if last != first else "",
                  line(outward(row.summary or "")), row.status or "active", where=line(_where(row)))
        for row, first, last in rows
    ]


def _where(row) -> str:
    """The tool a conversation is from and its project's folder name, as a picker's row says them."""
    return " · ".join(x for x in (row.source or "conv", re.split(r"[/\\]", (row.project or "").rstrip("/\\"))[-1]) if x)


def choose(ws: Workspace, candidate: Candidate) -> None:
    """Make the choice this terminal's current conversation, as ``conv use`` does."""
    make_current(ws, candidate.id)


def rank(query: str, found: list[Candidate], fields: tuple = FIELDS) -> list[Ranked]:
    """The candidates that match ``query`` in ``fields``, best first: words as typed in the
    title, then words as typed anywhere, then fuzzy matches; by score within
    each, the most recent first on a tie. An empty query keeps them all, newest first."""
    words = query.lower().split()
    if not words:
        return [Ranked(c, 0, TIER_FUZZY, {}) for c in found]
    ranked = [r for r in (_match(words, c, fields) for c in found) if r is not None]
    return sorted(ranked, key=lambda r: (-r.tier, -r.score))  # stable: ties stay newest first


SEARCHED = 20  # conversations the full-text search offers per keystroke (the picker shows 10)
KEYSTROKE_POOL = 500  # matching turns scored a keystroke (a search's 2,000: the rest make no visible difference)
PREFIX_LEAST = 3  # letters of the word being typed before it is searched for as a prefix (re* is most words)
TIER_SEARCH = 1  # a full-text hit: after the titles holding the words, with the other text matches


def searcher(ws: Workspace, printable: Callable[[str], str]):
    """``rank(query, found)`` as the picker calls it on each keystroke: the
    fuzzy matches among ``found`` whose title holds the words, then the
    conversations a full-text search of every turn finds (the last word, still
    being typed, as a prefix), best first, each with its matching turn to
    preview, then the other fuzzy matches."""
    def rank_all(query: str, found: list[Candidate]) -> list[Ranked]:
        words = query.split()
        if words and not query.endswith(" ") and not words[-1].endswith("*"):
            last = words.pop()  # the word being typed: a prefix, once it has PREFIX_LEAST letters
            if len(last) >= PREFIX_LEAST:
                words.append(last + "*")
        if not words:
            return rank(query, found)
        fuzzy = rank(query, found, ("title", "summary"))  # the turns are the full-text search's
        searched = _searched(ws, printable, " ".join(words), SEARCHED, KEYSTROKE_POOL)
        titled = [r for r in fuzzy if r.tier == TIER_TITLE]
        seen = {r.candidate.id for r in titled} | {r.candidate.id for r in searched}
        return [*titled, *(r for r in searched if r.candidate.id not in {t.candidate.id for t in titled}),
                *(r for r in fuzzy if r.candidate.id not in seen)]

    return rank_all


NAMED = 100  # conversations a TEXT given on the command line is looked for in, beyond the latest LIMIT


def named(ws: Workspace, printable: Callable[[str], str], query: str, found: list[Candidate]) -> list[Ranked]:
    """What TEXT given on the command line names: ``rank``'s tiers over the
    latest ``found``, and every conversation of the store a turn of which
    holds the words (a full-text search) among those whose text holds them."""
    words = query.lower().split()
    ranked = [r if r.tier == TIER_FUZZY or _as_words(words, r.candidate, r.tier) else replace(r, tier=TIER_FUZZY)
              for r in rank(query, found)]  # "50" is in "Topic 350", but not as a word: that only resembles it
    tiers = {r.candidate.id: r.tier for r in ranked}
    more = [r for r in _searched(ws, printable, query, NAMED, every=True) if tiers.get(r.candidate.id, -1) < TIER_TEXT]
    moved = {r.candidate.id for r in more}
    return sorted([*(r for r in ranked if r.candidate.id not in moved), *more], key=lambda r: -r.tier)


def _as_words(words: list[str], c: Candidate, tier: int) -> bool:
    """Whether each word begins a word where ``rank`` found it as typed (the title, or some field)."""
    fields = ("title",) if tier == TIER_TITLE else FIELDS
    return all(any(re.search(r"(?<!\w)" + re.escape(w), c.lower[name]) for name in fields) for w in words)


def _searched(ws: Workspace, printable: Callable[[str], str], query: str, limit: int,
              pool: int | None = None, every: bool = False) -> list[Ranked]:
    """The conversations a full-text search finds (``every``: those holding every word), best first, each with
    its matching turn to preview."""
    from ..index.queries import HIT_END, HIT_START

    now = current(ws).conv_id
    try:
        hits = ws.index.queries.search(query, limit, pool=pool, every=every)
    except ConvError:
        return []
    out, line = [], lambda some: " ".join(printable(some).split())  # noqa: E731 - as candidates() makes a line
    for hit in hits:
        text, marks = _marked(printable(hit.snippet), HIT_START, HIT_END)
        row = hit.row
        out.append(Ranked(Candidate(
            row.id, ws.index.queries.short_id(row.id), row.updated, row.id == now, line(outward(row.title)), text,
            "", line(outward(row.summary or "")), row.status or "active", f"turn {hit.number} ({hit.role}): {text}",
            line(_where(row))), 0, TIER_SEARCH, {"first": marks}))
    return out


def _marked(snippet: str, start: str, end: str) -> tuple[str, list[int]]:
    """A snippet's text without its match marks, and the positions the marks held."""
    out, marks, inside = [], [], False
    for ch in " ".join(snippet.split()):
        if ch in (start, end):
            inside = ch == start
            continue
        if inside:
            marks.append(len(out))
        out.append(ch)
    return "".join(out), marks


def clear_choice(ranked: list[Ranked]) -> Candidate | None:
    """The one conversation the text names, if it names one: the only match of
    the best tier that has any (so one title holding the words wins over
    others that merely mention them; two such titles are a question)."""
    if not ranked or (len(ranked) > 1 and ranked[1].tier == ranked[0].tier):
        return None
    return ranked[0].candidate


def unresolved(query: str, ranked: list[Ranked], shown: int = 5) -> RefError:
    """The error when no picker can settle it (no terminal): the best few
    candidates, so the next try can name one; counted in their tier (those
    that hold the words, else those that only resemble them)."""
    def names(some: list[Ranked]) -> str:
        return ", ".join(f'{r.candidate.short} "{_cut(r.candidate.title or "(untitled)", 40)}"' for r in some)

    if not query:
        return RefError(f"no terminal to pick on; the latest are {names(ranked[:shown])}",
                        "Give text that names one (conv resume TEXT) or use conv use REF")
    if not ranked:
        return RefError(f"no conversation matches {query!r}", "Give less text, or see conv list")
    best = [r for r in ranked if r.tier == ranked[0].tier]
    said = f"{query!r} resembles" if ranked[0].tier == TIER_FUZZY else f"{query!r} is in"
    count = f"{len(best)} or more" if len(best) >= NAMED else str(len(best))
    more = f" … ({count} in all)" if len(best) > shown else ""
    others = f"; {len(ranked) - len(best)} more only resemble it" if len(ranked) > len(best) else ""
    return RefError(f"{said} {count} conversations: {names(best[:shown])}{more}{others}",
                    "Give more text, or use conv use REF")


def fuzzy(term: str, text: str, lower: str | None = None) -> tuple[int, list[int]] | None:
    """The best score of ``term`` (lower case) as a subsequence of ``text``, and
    the positions matched; None when it is not one. Each occurrence of the
    term's first letter (up to MAX_STARTS) starts a greedy alignment."""
    lower = _lower(text) if lower is None else lower
    best = None
    start = lower.find(term[0])
    for _ in range(MAX_STARTS):
        if start < 0:
            break
        positions, at = [start], start
        for letter in term[1:]:
            at = lower.find(letter, at + 1)
            if at < 0:
                return best  # a later start cannot fit the term either
            positions.append(at)
        score = _score(text, positions)
        if best is None or score > best[0]:
            best = (score, positions)
        start = lower.find(term[0], start + 1)
    return best


def _match(words: list[str], c: Candidate, fields: tuple = FIELDS) -> Ranked | None:
    """Every word must match some field; each counts where it matches best."""
    marks: dict[str, set[int]] = {}
    total = 0
    for word in words:
        hits = [(hit[0] + (IN_TITLE if name == "title" else 0), name, hit[1])
                for name in fields if (hit := fuzzy(word, getattr(c, name), c.lower[name]))]
        if not hits:
            return None
        score, name, positions = max(hits, key=lambda h: h[0])
        total += score
        marks.setdefault(name, set()).update(positions)
    if all(w in c.lower["title"] for w in words):
        tier = TIER_TITLE
    elif all(any(w in c.lower[name] for name in fields) for w in words):
        tier = TIER_TEXT
    else:
        tier = TIER_FUZZY
    return Ranked(c, total, tier, {name: sorted(p) for name, p in marks.items()})


def _score(text: str, positions: list[int]) -> int:
    """fzf's scoring: a run of consecutive matches keeps the bonus its first
    letter earned, a gap costs by its length."""
    score, run_bonus, previous = 0, 0, None
    for n, at in enumerate(positions):
        bonus = _bonus(text, at)
        if previous is not None and at == previous + 1:
            run_bonus = max(run_bonus, bonus, CONSECUTIVE)
            bonus = run_bonus
        else:
            if previous is not None:
                score += GAP_START + GAP_EXTEND * (at - previous - 2)
            run_bonus = bonus
        score += MATCH + bonus * (FIRST_LETTER if n == 0 else 1)
        previous = at
    return score


def _bonus(text: str, at: int) -> int:
    letter = text[at]
    before = text[at - 1] if at else " "
    if letter.isalnum() and not before.isalnum():
        return BOUNDARY
    if (before.islower() and letter.isupper()) or (before.isalpha() and letter.isdigit()):
        return CAMEL
    return 0


def _lower(text: str) -> str:
    """Lower case, one character for one, so positions in it are positions in ``text``."""
    return "".join(ch if len(low := ch.lower()) != 1 else low for ch in text)


def _cut(text: str, length: int) -> str:
    return text if len(text) <= length else text[: length - 1] + "…"

