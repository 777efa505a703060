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
    return [(at[m.start()], at[m.end() - 1] + 1, what) for what, pattern in _shapes()
            for m in pattern.finditer(folded)]


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
    ``text`` (a key split by any of them still reads as one, and is found as one)."""
    if text.isascii() and not _SPLITS_ASCII.search(text):
        return text, list(range(len(text) + 1))
    hook = _hook()
    out, at, last = [], [], 0
    for found in _splits(hook).finditer(text):
        out.append(text[last:found.start()])
        at += range(last, found.start())
        read = hook.fold(found[0]) if hook.FOLDED.fullmatch(found[0]) else ""
        out.append(read)
        at += range(found.start(), found.start() + len(read))
        last = found.end()
    out.append(text[last:])
    at += range(last, len(text) + 1)
    return "".join(out), at


_EMPHASIS = r"(?<=[\w-])(?:\*{1,3}|_{2,3}|~~|`)(?=\w)"  # Markdown's emphasis or code inside a word
_SPLITS_ASCII = re.compile(rf"[&\x00-\x08\x0b-\x1f\x7f]|{_EMPHASIS}")  # what, in ASCII, may split a key


@cache
def _splits(hook) -> re.Pattern:
    return re.compile(f"{hook.FOLDED.pattern}|{SEQUENCE.pattern}|{CONTROL.pattern}|{_EMPHASIS}")


_PEM = re.compile(r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----.*?(?:-----END \1-----|\Z)", re.S)


def _shapes() -> list:
    """The hook's patterns, a private key taken whole (BEGIN to END, or to the end of the text)."""
    return [("a private key", _PEM), *((what, p) for what, p in _hook().PATTERNS if what != "a private key")]


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
