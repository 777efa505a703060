"""What only looks like a key: the store's pre-commit hook's patterns (API
keys, tokens; one list, in the hook, which must run without conv) and a
private key's whole block, found the way a reader reads the text: whatever
splits a key without showing (invisible characters, escape sequences, control
characters, Markdown's emphasis inside a word) taken out first. For what
leaves the machine (home/secrets.outward, conv share) and what is kept out of
the store (captures, imports, a teammate's ref)."""

import os
import re
from functools import cache

from ..inert import CONTROL, SEQUENCE


def shaped(text: str) -> list[tuple[int, int, str]]:
    """(start, end, what it looks like) of each thing in ``text`` shaped like a key, in ``text``'s own positions."""
    folded, at = _folded(text)
    return [(at[start], at[end - 1] + 1, what) for what, find in _shapes() for start, end in find(folded)]


def key_shaped(text: str) -> str | None:
    """What the first thing in ``text`` shaped like a key looks like ("an
    OpenAI API key"), or None; None too when ``CONV_ALLOW_SECRETS=1`` lets keys
    through, as it does for the pre-commit hook (every place conv refuses one
    asks here)."""
    if os.environ.get("CONV_ALLOW_SECRETS") == "1":
        return None
    return next((what for what, pattern in _hook().PATTERNS if pattern.search(text)), None)


def _folded(text: str) -> tuple[str, list[int]]:
    """``text`` as a reader sees it: what shows nothing (a zero-width space, a
    soft hyphen, as a character or an HTML entity: the hook's own folding),
    what acts on a terminal (escape sequences, control characters: a key
    coloured by grep) and Markdown's emphasis inside a word (``sk-**ab**cd``)
    taken out, dashes made hyphens; and where each of its characters is in
    ``text`` (a key split by any of them still reads as one, and is found as one).
    Looked for only where one of their first characters is (a plain scan for one
    class of characters, many times faster than trying the whole expression everywhere)."""
    hook = _hook()
    splits, starts = _splits(hook)
    out, at, last = [], [], 0
    found = starts.search(text)
    while found:
        split = splits.match(text, found.start())
        if split is None or split.end() == split.start():
            found = starts.search(text, found.start() + 1)
            continue
        out.append(text[last:split.start()])
        at += range(last, split.start())
        read = hook.fold(split[0]) if hook.FOLDED.fullmatch(split[0]) else ""
        out.append(read)
        at += range(split.start(), split.start() + len(read))
        last = split.end()
        found = starts.search(text, last)
    if not last:
        return text, range(len(text) + 1)
    out.append(text[last:])
    at += range(last, len(text) + 1)
    return "".join(out), at


_EMPHASIS = r"(?<=[\w-])(?:\*{1,3}|_{2,3}|~~|`)(?=\w)"  # Markdown's emphasis or code inside a word


@cache
def _splits(hook) -> tuple[re.Pattern, re.Pattern]:
    """What may split a key, and the characters one of them begins with."""
    first = hook.FOLDED.pattern[:hook.FOLDED.pattern.index("]")].lstrip("[")  # its characters; & begins the rest
    control = CONTROL.pattern[1:-1]  # SEQUENCE begins with one of them too
    return (re.compile(f"{hook.FOLDED.pattern}|{SEQUENCE.pattern}|{CONTROL.pattern}|{_EMPHASIS}"),
            re.compile(f"[{first}{control}&*_~`]"))


_PEM = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----.*?(?:-----END \1-----|\Z)", re.S)


@cache
def _shapes() -> list:
    """The hook's patterns, a private key taken whole (BEGIN to END, or to the end of the text), and what
    leaves the machine must not carry though the hook lets it into the store (a password set in a command
    or a URL's query, a key's start where a title was cut, a JSON web token), each as a function giving
    (start, end) of what it finds."""
    return [("a private key", _finder(_PEM)), *((what, _finder(p)) for what, p in _hook().PATTERNS
                                                 if what != "a private key"),
            ("a password or token set", _assigned), ("a key cut short", _finder(_CUT_KEY)),
            ("a JSON web token", _finder(_JWT))]


# A value given to a name that says it is a secret (PGPASSWORD=…, db_password: "…", ?token=…): six characters
# or more, a digit or a sign among them, no call, no variable or template it only names ($X, ${x}, {{ x }}, <x>).
_ASSIGNED = (re.compile(r"(?:pass(?:word|wd|phrase)|secret|token|(?:api|secret|private|access)_?key)[\"']?[ \t]*"
                        r"[:=][ \t]*[\"']?(?![$<{*%])([^\s\"',;()\[\]]{6,})"),
             re.compile(r"[?&](?:access_token|token|api_?key|key|secret|password|sig|signature)=([^\s\"'&#]{6,})"))
# (matched in the text lowered: a case-blind expression is ten times slower to scan)
_JWT = re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")  # a signed session: its payload
# names who it is for
_CUT_KEY = re.compile(r"(?:sk-|gh[pousr]_|github_pat_|xox[abposr]-|glpat-|AKIA|ASIA|AIza|hf_|npm_)[A-Za-z0-9_-]{6,}"
                      r"(?=…)")  # a title or a snippet cut inside a key: too short for its shape


def _assigned(text: str):
    lower = text.lower()
    if len(lower) != len(text):  # a letter lowered to two: the positions would not be the text's
        lower = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    for m in (m for pattern in _ASSIGNED for m in pattern.finditer(lower)):
        value = text[m.start(1):m.end(1)]
        if any(not c.isalpha() and c != "_" for c in value) and not value.endswith((".", ":")) \
                and not _DOTTED_NAME.fullmatch(value):
            yield m.span(1)


_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")  # os.environ, settings.SECRET: code naming a value


def _finder(pattern: re.Pattern):
    """``pattern``'s matches; one that begins with ``\\b`` is searched for without it (its first letters
    scanned for, not tried at every place) and the boundary checked on what is found."""
    if not pattern.pattern.startswith("\\b"):
        return lambda text: ((m.start(), m.end()) for m in pattern.finditer(text))
    bare = re.compile(pattern.pattern[2:], pattern.flags)

    def find(text: str):
        for m in bare.finditer(text):
            bounded = pattern.match(text, m.start())  # \\b at a place sees the character before it
            if bounded:
                yield bounded.span()
    return find


@cache
def _hook():
    """The pre-commit hook, as a module: its PATTERNS (one list of shapes, in the
    hook, which must run without conv), and what it folds before they look."""
    from importlib.machinery import SourceFileLoader
    from importlib.util import module_from_spec, spec_from_loader
    from pathlib import Path

    loader = SourceFileLoader("conv_pre_commit_hook",
                              str(Path(__file__).resolve().parent.parent / "hooks" / "pre-commit"))
    module = module_from_spec(spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module
