"""Which regular expressions could take forever on a line that nearly
matches (``redact.patterns`` runs on every text that leaves the machine: one
such expression would hang every push or export): a repetition of what itself
repeats or chooses (``(a+)+``: exponential), and two unbounded repetitions
with nothing between them that must be there, able to take the same
character (``\\w+\\s*\\w+``: each split of a run of letters tried, cubic for
three). Read from the expression as the re module parses it, not from its
spelling; the characters two parts can take are tried on a sample of them."""

import string
from re import _constants as c
from re import _parser

REPEATS = (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT)
SAMPLE = string.printable + "\u00e9\u00df\u4e2d\u00a0\u2028\u0660"  # letters, digits, spaces of other scripts too
_CATEGORIES = {c.CATEGORY_DIGIT: str.isdecimal, c.CATEGORY_SPACE: str.isspace,
               c.CATEGORY_WORD: lambda ch: ch.isalnum() or ch == "_"}
_NOT = {c.CATEGORY_NOT_DIGIT: c.CATEGORY_DIGIT, c.CATEGORY_NOT_SPACE: c.CATEGORY_SPACE,
        c.CATEGORY_NOT_WORD: c.CATEGORY_WORD}


def why_slow(pattern: str) -> str:
    """What makes ``pattern`` slow, said with how to write it instead; "" when nothing does."""
    parsed = _parser.parse(pattern)
    if _nested(parsed.data):
        return "repeats a repetition or alternatives: write it without, e.g. (a+)+ as a+, (a|aa)+ as a+"
    if _neighbours(parsed):
        return ("has two unbounded repetitions that can take the same characters with nothing needed between "
                "them: write it so that something must separate them, e.g. \\w+\\s*\\w+ as \\w+\\s+\\w+")
    return ""


def _nested(items) -> bool:
    def varies(items) -> bool:  # holds a repetition of more than one, or a choice
        for op, av in items:
            if op in REPEATS and (av[1] != av[0] or varies(av[2])) or op == c.BRANCH:
                return True
            if op == c.SUBPATTERN and varies(av[3]) or op in REPEATS and varies(av[2]):
                return True
        return False

    for op, av in items:
        if op in REPEATS and av[1] > 1 and op != c.POSSESSIVE_REPEAT and varies(av[2]):
            return True
        if _nested(_inner(op, av)):
            return True
    return False


def _inner(op, av) -> list:
    return av[3] if op == c.SUBPATTERN else av[2] if op in REPEATS else \
        [x for branch in av[1] for x in branch] if op == c.BRANCH else []


def _neighbours(parsed) -> bool:
    """Whether a sequence, at any depth, holds two unbounded repetitions that can take a character in common
    with only what may be empty between them."""
    def sequence(items) -> bool:
        widths = [_parser.SubPattern(parsed.state, [item]).getwidth() for item in items]
        for i, (op, av) in enumerate(items):
            if widths[i][1] < c.MAXREPEAT or op == c.POSSESSIVE_REPEAT:
                continue
            for j in range(i + 1, len(items)):
                if widths[j][1] >= c.MAXREPEAT and _chars(items[i]) & _chars(items[j]):
                    return True
                if widths[j][0] > 0:  # something that must be there between them
                    break
        return any(sequence(_inner(op, av)) if op != c.BRANCH else any(sequence(b) for b in av[1])
                   for op, av in items)

    return sequence(parsed.data)


def _chars(item) -> frozenset:
    """The sample's characters ``item`` can take anywhere in what it matches."""
    op, av = item
    if op == c.LITERAL:
        return frozenset(ch for ch in SAMPLE if ord(ch) == av)
    if op == c.NOT_LITERAL:
        return frozenset(ch for ch in SAMPLE if ord(ch) != av)
    if op == c.ANY:
        return frozenset(SAMPLE) - {"\n"}
    if op == c.IN:
        negate = any(o == c.NEGATE for o, _ in av)
        taken = frozenset(ch for ch in SAMPLE if any(_in(o, a, ch) for o, a in av if o != c.NEGATE))
        return frozenset(SAMPLE) - taken if negate else taken
    if op == c.BRANCH:
        return frozenset().union(*(_chars(x) for branch in av[1] for x in branch))
    return frozenset().union(*(_chars(x) for x in _inner(op, av)))


def _in(op, av, ch: str) -> bool:
    if op == c.LITERAL:
        return ord(ch) == av
    if op == c.RANGE:
        return av[0] <= ord(ch) <= av[1]
    if op == c.CATEGORY:
        return _CATEGORIES[av](ch) if av in _CATEGORIES else not _CATEGORIES[_NOT[av]](ch) if av in _NOT else True
    return False
