"""What counts as a secret on this machine, and ``redact``, the one function
that masks it: in everything conv prints (terminal/sanitize.py's ``clean``,
JSON included) and in what conv itself writes into the store (an answer's
``error:`` and ``hint``, commit messages). Questions and answers are stored
as they were typed and sent; the pre-commit hook is what keeps keys out of them.

A secret is:
- URL userinfo, whole: ``https://user:p@ss@host`` and ``https://TOKEN@host``
  both show as ``https://***@host`` (the userinfo ends at the last ``@``
  before the host; a user name alone may be a token, so it goes too);
- the value of ``Authorization:``, ``Proxy-Authorization:`` and
  ``x-api-key:`` headers;
- the values (8 characters or more) of ``*_API_KEY``, ``*_TOKEN``,
  ``*_SECRET``, ``*_PASSWORD`` (and ``*_SECRET_ACCESS_KEY``, ``*_PRIVATE_KEY``)
  in the environment and of keys named so in conv's config (``api_key``),
  and keys conv got from a command (an endpoint's ``key_cmd``);
- what a named endpoint sends as credentials, whatever it is called: the
  variable its ``key_env`` names, the values of its ``headers``.

It runs on every printed line, so the values are gathered once, when first
needed, and matched with one regular expression.
"""

import os
import re
from functools import cache

MASK = "***"
SHORTEST = 8  # shorter values of such variables are flags and paths, not keys
_NAME = re.compile(r"(?:^|[_.-])(?:API[_-]?KEY|TOKEN|SECRET|PASSWORD|SECRET_ACCESS_KEY|PRIVATE_KEY)$", re.IGNORECASE)
_USERINFO = re.compile(r"://[^\s/?#]*@")
_HEADERS = ("authorization", "proxy-authorization", "x-api-key")
_HEADER_NAME = re.compile("|".join(_HEADERS), re.IGNORECASE)
_HEADER = re.compile(rf"({'|'.join(_HEADERS)})([ \t]*[\"']?[ \t]*[:=][ \t]*[\"']?[ \t]*)[^\s\"',}}][^\r\n\"',}}]*",
                     re.IGNORECASE)  # the value, to the end of its line (or of its quoted string)
_KEYISH = re.compile(r"auth|key|token|secret|password|cookie|session", re.IGNORECASE)  # a header's name
_CONFIG_LINE = re.compile(r"^\s*[\"']?([A-Za-z0-9_.-]+)[\"']?\s*:\s*(.+?)\s*$", re.MULTILINE)
_AUTHORITY_END = re.compile(r"[\s/?#]")
_STARTS = (*_HEADERS, "://")  # what a streamed piece may end in the middle of


def redact(text: str) -> str:
    return masked(text, spans(text)) if text else text  # every secret conv knows as ***


def outward(text: str) -> str:
    """``text`` as conv hands it outside the store (conv mcp, conv handoff, a shared page): every secret conv
    knows masked, and what only looks like one (the pre-commit hook's shapes, a private key's block) too."""
    return masked(text, spans(text, looking_alike=True)) if text else text


def redacted(data, first=None, rule=redact):
    """``data`` (JSON-like: texts, lists, mappings) with every text, keys too,
    passed through ``first`` when given (what would act on a terminal taken
    out, so that a key coloured by grep reads whole) and then masked by
    ``rule`` (``redact``, or ``outward``). A text met again (keys, a title on
    every line of conv blame) is masked once."""
    done: dict[str, str] = {}

    def each(value):
        if isinstance(value, str):
            found = done.get(value)
            if found is None:
                found = done[value] = rule(first(value) if first else value)
            return found
        if isinstance(value, dict):
            return {each(k): each(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [each(v) for v in value]
        return value

    return each(data)


def spans(text: str, looking_alike: bool = False) -> list[tuple[int, int, str | None]]:
    """Where ``text`` holds a secret, as (start, end, what it looks like, or
    None for a secret conv knows): a known value, a URL's userinfo, a
    header's value; with ``looking_alike``, also what only looks like a key
    (the pre-commit hook's patterns, a private key's whole block). Overlapping
    ones are joined."""
    found = []
    known = _known(os.environ.get("CONV_HOME"))
    if known is not None:
        found += [(m.start(), m.end(), None) for m in known.finditer(text)]
    if "://" in text and "@" in text:
        found += [(m.start() + 3, m.end() - 1, None) for m in _USERINFO.finditer(text)]
    lower = text.lower()
    if "authorization" in lower or "x-api-key" in lower:
        found += [(m.end(2), m.end(), None) for m in _HEADER.finditer(text)]
    if looking_alike:
        from .key_shapes import shaped

        found += shaped(text)
    joined: list[tuple[int, int, str | None]] = []
    for start, end, what in sorted(found, key=lambda span: span[:2]):
        if joined and start < joined[-1][1]:  # overlapping: one; side by side: two, as each is masked
            last = joined[-1]
            joined[-1] = (last[0], max(last[1], end), last[2] or what)
        elif end > start:
            joined.append((start, end, what))
    return joined


def masked(text: str, where: list[tuple]) -> str:
    """``text`` with each span of ``where`` replaced by ``***`` (or by what it says to show instead:
    home/redaction.py's spans)."""
    out, at = [], 0
    for span in where:
        out += [text[at:span[0]], shown(span)]
        at = span[1]
    return "".join(out) + text[at:]


def shown(span: tuple) -> str:
    """What a span of ``spans`` (start, end, what) or of a redactor (start, end, kind, instead) shows."""
    return span[3] if len(span) > 3 else MASK


def gather() -> None:
    """Find the secrets now (reading conv's config for them), not at the first
    redaction: conv push does it while git pushes."""
    _known(os.environ.get("CONV_HOME"))


def unfinished(text: str) -> int:
    """Where the end of a streamed ``text`` might be the start of a secret
    that more text would complete (``len(text)`` when it cannot): a streaming
    printer holds that part back until the next piece or the end. That is a
    URL whose userinfo may still come, a header's line (its value has
    spaces), the start of a header's name, of ``://`` or of a known value;
    always from the start of its word, so a piece never splits a match."""
    cut = len(text)
    at = text.rfind("://")
    if at >= 0 and not _AUTHORITY_END.search(text, at + 3):
        cut = at
    header = _HEADER_NAME.search(text, text.rfind("\n") + 1)
    if header:
        cut = min(cut, header.start())
    for within, words in ((text, _values(os.environ.get("CONV_HOME"))), (text.lower(), _STARTS)):
        for word in words:
            size = _started(within, word)
            cut = min(cut, len(text) - size) if size else cut
    while 0 < cut < len(text) and not text[cut - 1].isspace():
        cut -= 1
    return cut


def _started(text: str, word: str) -> int:
    """The length of the longest end of ``text`` that begins ``word`` but is not all of it."""
    for size in range(min(len(word) - 1, len(text)), 0, -1):
        if text.endswith(word[:size]):
            return size
    return 0


_remembered: set[str] = set()  # keys conv obtained itself (an endpoint's key_cmd)


def remember(value: str) -> None:
    """Mask ``value`` too from now on (a key a command printed)."""
    _remembered.add(value)
    _values.cache_clear()
    _known.cache_clear()


@cache
def _values(home: str | None) -> tuple[str, ...]:
    """The secret values of the environment and the config file, longest
    first (so a key that contains another is masked whole). Keyed by
    CONV_HOME, so a new home in the same process (the tests') starts over."""
    from ..errors import UsageError
    from . import paths  # here: conv prompt and conv init print without ever needing it

    found = {value for name, value in os.environ.items() if _NAME.search(name)} | _remembered
    try:
        text = paths.config_file().read_bytes().decode("utf-8", "replace")
    except (OSError, UsageError):  # no config to read (CONV_HOME unusable): its error is being printed
        text = ""
    for name, value in _CONFIG_LINE.findall(text):
        if _NAME.search(name):
            found.add(_unquote(value))
    if "endpoints" in text:
        found |= _endpoint_secrets(text)
    return tuple(sorted((v for v in found if len(v) >= SHORTEST), key=len, reverse=True))


def _endpoint_secrets(text: str) -> set[str]:
    """What the named endpoints send as credentials, whatever they are called:
    the variable each ``key_env`` names, and the values of ``headers`` (but a
    plain URL, such as an HTTP-Referer, under a name that is not about keys)."""
    from ..format.canonical import parse_canonical
    from .values import header_map

    try:
        doc = parse_canonical(text)
        if doc is None:
            from .config import _yaml

            doc = _yaml().load(text)
    except Exception:  # noqa: BLE001 - a config that does not parse is said elsewhere; its lines were read above
        return set()
    endpoints = doc.get("endpoints") if isinstance(doc, dict) else None
    found = set()
    for endpoint in (endpoints or {}).values() if isinstance(endpoints, dict) else ():
        if not isinstance(endpoint, dict):
            continue
        variable = endpoint.get("key_env")
        if isinstance(variable, str) and os.environ.get(variable):
            found.add(os.environ[variable])
        try:
            headers = header_map(endpoint["headers"]) if endpoint.get("headers") else {}
        except ValueError:
            headers = {}
        for name, value in headers.items():
            value = str(value).strip()
            if not value.startswith(("http://", "https://")) or _KEYISH.search(str(name)):
                found |= _forms(value)
    return found


def _forms(value: str) -> set[str]:
    """A credential as it is sent and as a server may echo it back: the
    header's whole value, the token after its scheme ("Bearer TOKEN"), and a
    Basic one's user:password and password."""
    found = {value}
    scheme, _, token = value.partition(" ")
    token = token.strip()
    if token and scheme.isalpha():
        found.add(token)
        if scheme.lower() == "basic":
            import base64
            import binascii

            try:
                pair = base64.b64decode(token, validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                pair = ""
            found |= {pair, pair.partition(":")[2]} if ":" in pair else set()
    return found


@cache
def _known(home: str | None) -> re.Pattern | None:
    """One expression for all the values (None: there are none)."""
    values = _values(home)
    return re.compile("|".join(map(re.escape, values))) if values else None


def _unquote(value: str) -> str:
    """A YAML scalar as written on its line: quotes removed, a comment dropped."""
    if value[:1] in "\"'" and value[:1] in value[1:]:
        return value[1:value.rindex(value[0])]
    return value.split(" #", 1)[0].strip()
