"""Model output and store text are data: before they reach a terminal, what
would act on it (inert.py: escape sequences, control and bidi
characters) is removed, and every secret is masked (home/secrets.py). JSON
escapes the same characters instead, so it parses back to the exact text.
The store keeps the text as it came.
"""

import re

from ..home.secrets import redact, unfinished
from ..inert import BIDI, CONTROL, strip

_JSON_UNSAFE = re.compile(f"[\\x7f-\\x9f{BIDI}]")  # json.dumps escapes the C0 controls itself


_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def inert_entities(text: str) -> str:
    """Markdown for rich: a character reference that would decode to what
    ``strip`` removes (``&#x202E;``, ``&rlm;``: the renderer decodes them
    after clean() ran) is escaped, so it shows as typed."""
    if "&" not in text:
        return text
    from html import unescape

    return _ENTITY.sub(lambda m: "&amp;" + m[0][1:] if CONTROL.search(unescape(m[0])) else m[0], text)


def clean(text: str) -> str:
    """Text safe to print: stripped, and its secrets masked."""
    return redact(strip(text))


def escape_json(dumped: str) -> str:
    """JSON from ``json.dumps(…, ensure_ascii=False)`` with DEL, C1 and bidi
    characters written as ``\\u009b``: the same text once parsed, inert on a
    terminal. (They can only occur inside strings, where an escape is valid.)"""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", dumped)


# A sequence that has all its bytes (used to decide whether a chunk's tail waits).
_COMPLETE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
    r"|\x1b[^\[\]PX^_]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|[\x90\x9d\x98\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
)
_INTRODUCERS = "\x1b\x9b\x90\x9d\x98\x9e\x9f"
MOST_HELD = 256  # a tail held back longer than this is not a sequence or a secret after all


class StreamCleaner:
    """``clean`` for a stream cut into arbitrary chunks: a sequence split across
    two chunks is held back until it is complete, so it is removed whole, and
    so is the start of what may be a secret (``secrets.unfinished``), so it is
    masked whole."""

    def __init__(self):
        self._raw = ""  # an escape sequence's first part
        self._text = ""  # stripped text that may be a secret's first part

    def feed(self, chunk: str) -> str:
        text = self._raw + chunk
        cut = max(text.rfind(c) for c in _INTRODUCERS)
        if cut >= 0 and len(text) - cut < MOST_HELD and not _COMPLETE.match(text, cut):
            self._raw, text = text[cut:], text[:cut]
        else:
            self._raw = ""
        text = self._text + strip(text)
        cut = unfinished(text)
        if len(text) - cut >= MOST_HELD:
            cut = len(text)
        self._text = text[cut:]
        return redact(text[:cut])

    def flush(self) -> str:
        rest = self._text + strip(self._raw)
        self._raw = self._text = ""
        return redact(rest)
