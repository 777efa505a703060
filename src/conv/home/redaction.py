"""What would give the user away in a conversation that leaves the machine
(conv share, conv export, conv push --project, conv handoff), masked with
placeholders that keep the page readable: their own values exactly (home
folder in any spelling, the project's root, login, host, git name and
e-mail), then anything shaped like an e-mail, an IP address or a host of an
internal domain, then the words and patterns of ``redact.*``; keys as
home/secrets.py masks them (``***``).

One ``Redactor`` per conversation numbers what it meets (``<email-1>`` is the
same address all through it, whichever turn it is in), counts each kind and
keeps a few samples in context, so ``--preview`` can show what would change
before anything is written. Plain regular expressions over the text, each
behind a cheap test for its one character (``@``, ``.``, ``:``): the clean
prose and code of a developer must come out unchanged, so version numbers,
``x.y.z`` module paths, decorators, npm scopes and ``icon@2x.png`` are not
e-mails or hosts."""

import ipaddress
import re
from collections.abc import Iterable

from ..records import dataclass, field
from .secrets import MASK, masked, spans
from .values import REDACTED

KINDS = REDACTED  # in the order a preview shows them; redact.off names them
GENERIC_USERS = frozenset({"root", "admin", "user", "ubuntu", "debian", "runner", "vscode", "node", "codespace",
                           "dev", "guest", "test"})  # a login everyone has: a word of prose, not a person
GENERIC_HOSTS = frozenset({"localhost", "ubuntu", "debian", "raspberrypi", "devbox", "runner"})
INTERNAL = ("internal", "corp", "local", "lan", "intranet", "home.arpa")
SAMPLES, CONTEXT = 3, 24  # per kind; characters of context each side

_LABELS = r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"
_AT = re.compile(rf"@({_LABELS}([A-Za-z]{{2,24}}))(?![\w-]|\.\w)")  # an e-mail's domain, found by its @
_NOT_MAIL_DOMAINS = re.compile(r"(?:^|\.)(?:example\.(?:com|org|net)|[^.]+\.(?:test|example|invalid|localhost))$",
                               re.IGNORECASE)  # RFC 2606's names: what documentation uses
_FILE_ENDINGS = frozenset("png jpg jpeg gif svg webp ico js mjs ts tsx jsx json css scss py md txt html yaml yml "
                          "toml lock rs go java rb sh pdf zip".split())  # icon@2x.png is a file
_DOTTED = re.compile(r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}")  # an IPv4 address, or a version's numbers
_VERSIONED = re.compile(r"(?:v|version |==|>=|<=|~=|\^|@)$", re.IGNORECASE)  # what a version number follows
_HEX = frozenset("0123456789abcdefABCDEF:")
_HEX_RUN = re.compile(r"[0-9A-Fa-f:]*")
_TWO_GROUPS = re.compile(r":[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:")  # found by its colon: the full form may be here
_FULL_V6 = re.compile(r"[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){7}")
_HOST_BACK = re.compile(_LABELS)  # a host name's labels, before its internal domain
_joins = re.compile(r"[\w-]").fullmatch  # a character next to a value making it part of a longer word
_CODE_OWNERS = frozenset({"self", "this", "cls", "threading", "obj", "ctx", "os", "np", "window", "document"})


@dataclass
class Mine:
    """The user's own values, each found exactly where it appears."""
    homes: tuple[str, ...] = ()  # absolute folders: shown as ~
    login: str = ""
    host: str = ""
    git_name: str = ""
    git_email: str = ""
    roots: tuple[str, ...] = ()  # the projects' absolute roots: shown as <project>


@dataclass
class Rules:  # redact.* of the config

    words: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    off: tuple[str, ...] = ()


@dataclass
class Found:
    count: int = 0
    samples: list[tuple[str, str]] = field(default_factory=list)  # (before, after), the text around each
    values: set = field(default_factory=set)  # of the samples: one sample a value


@dataclass
class Report:
    """What redaction changed, by kind, summed over what it read; the keys (``key``) among them."""
    kinds: dict[str, Found] = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)  # what looked like a key, and where: refused without --force

    def add(self, kind: str, value: str, before: str, after: str) -> None:
        found = self.kinds.setdefault(kind, Found())
        found.count += 1
        if len(found.samples) < SAMPLES and value not in found.values:
            found.values.add(value)
            found.samples.append((before, after))


class Redactor:
    """Masks one conversation's texts, numbering what it meets across them, noting each change in ``report``."""

    def __init__(self, mine: Mine, rules: Rules = Rules(), report: Report | None = None, keep: tuple[str, ...] = ()):
        self.report = report if report is not None else Report()
        self._keep = tuple(k for k in keep if k)  # texts left whole (the project's remote, on its own side ref)
        self._numbers: dict[tuple[str, str], str] = {}
        self._exact = _exact_rules(mine, rules)
        self._internal = _internal(rules.hosts)
        self._off = set(rules.off)
        self._patterns = [re.compile(p) for p in rules.patterns] if "words" not in self._off else []

    def __call__(self, text: str, where: str = "") -> str:
        """``text`` with all it holds of the user replaced."""
        return masked(text, self.spans(text, where)) if text else text

    def spans(self, text: str, where: str = "") -> list[tuple[int, int, str, str]]:
        """(start, end, kind, shown instead) of what to mask in ``text``, in order, none overlapping; each
        noted in the report (a key with ``where`` it was, for the refusal)."""
        found = []
        for start, end, what in spans(text, looking_alike=True):
            found.append((start, end, "key", MASK))
            said = f"what looks like {what} ({text[start:start + 6]}…)" if what else \
                "a secret conv knows (a key, token or password)"
            if f"{where or 'a text'} held {said}" not in self.report.keys:
                self.report.keys.append(f"{where or 'a text'} held {said}")
        lower = text.lower()
        for kind, pattern, shown, needles in self._exact:
            if any(needle in lower for needle in needles):
                found += [(m.start(), m.end(), kind, shown) for m in pattern.finditer(text)
                          if kind in ("home", "project") or not m.start() or not _joins(text[m.start() - 1])]
        for kind, pattern in self._patterns_of(text):
            found += [(s, e, kind, None) for s, e in pattern(text)]  # numbered once kept
        found.sort(key=lambda span: (span[0], -span[1]))
        whole = [(m.start(), m.end()) for k in self._keep if k in text for m in re.finditer(re.escape(k), text)]
        kept, last = [], 0
        for span in found:
            if any(a < span[1] and span[0] < b for a, b in whole) and span[2] != "key":
                continue
            if span[0] >= last and span[1] > span[0]:
                if span[3] is None:
                    span = (*span[:3], self._number(span[2], text[span[0]:span[1]]))
                kept.append(span)
                last = span[1]
                was = text[span[0]:span[1]] if span[2] != "key" else text[span[0]:span[0] + 6] + "…"
                self.report.add(span[2], was, _around(text, *span[:2], was), _around(text, *span[:2], span[3]))
        return kept

    def _patterns_of(self, text: str):  # each only where its one character is
        if "email" not in self._off and "@" in text:
            yield "email", _emails
        if "." in text:
            if "ip" not in self._off:
                yield "ip", _ipv4
            if "internal-host" not in self._off:
                yield "internal-host", self._internal_hosts
        if "ip" not in self._off and ("::" in text or text.count(":") >= 7):
            yield "ip", _ipv6
        for pattern in self._patterns:
            yield "words", lambda t, p=pattern: ((m.start(), m.end()) for m in p.finditer(t))

    def _number(self, kind: str, value: str) -> str:
        if kind == "words":
            return "<redacted>"
        key = (kind, value.lower())
        if key not in self._numbers:
            self._numbers[key] = f"<{'host' if kind == 'internal-host' else kind}-" \
                                 f"{sum(k == kind for k, _ in self._numbers) + 1}>"
        return self._numbers[key]

    def _internal_hosts(self, text: str) -> Iterable[tuple[int, int]]:
        for m in self._internal.finditer(text):
            start = _before(text, m.start() + 1, ".-", 253)
            if start is None or start and text[start - 1] in "_@" or text[start] in ".-" \
                    or not _HOST_BACK.fullmatch(text, start, m.start() + 1):
                continue
            if text[start:m.start()].split(".", 1)[0].lower() not in _CODE_OWNERS and text[m.end():m.end() + 1] != "(":
                yield start, m.end()


def _exact_rules(mine: Mine, rules: Rules) -> list[tuple[str, re.Pattern, str, tuple[str, ...]]]:
    """The user's own values and ``redact.words``: (kind, expression, shown instead, what the text must hold,
    lowercased, for the expression to be tried: the last part of each value), longest values first. A word
    must stand alone (not ``ana`` in ``banana``); a folder is one wherever it begins (``\\n/home/ana`` in JSON)."""
    off, out = set(rules.off), []

    def add(kind: str, values: Iterable[str], shown: str, flags=0) -> None:
        values = sorted({v for v in values if v}, key=len, reverse=True)
        if values and kind not in off:
            body = "|".join(map(re.escape, values))
            needles = tuple({re.split(r"[/\\]", v)[-1].lower() or v.lower() for v in values})
            out.append((kind, re.compile(f"(?:{body})(?![\\w-])", flags), shown, needles))

    add("project", [s for r in mine.roots if _worth(r, mine.homes) for s in _spellings(r)], "<project>")
    login = mine.login if len(mine.login) >= 3 and mine.login.lower() not in GENERIC_USERS else ""
    homes = [s for h in mine.homes if _worth(h, ()) for s in _spellings(h)]
    if login:
        homes += [f"{drive}{sep}{top}{sep}{login}" for drive in ("", "C:", "c:", "/mnt/c", "/c")
                  for sep in ("/", "\\", "\\\\") for top in ("home", "Users", "users")]
    add("home", homes, "~")
    add("git", [mine.git_email], "<email>", re.IGNORECASE)
    add("git", [mine.git_name] if len(mine.git_name) >= 3 else [], "<name>", re.IGNORECASE)
    host = mine.host if mine.host.lower() not in GENERIC_HOSTS else ""
    add("host", [host, host.split(".")[0]] if len(host) >= 3 else [], "<host>", re.IGNORECASE)
    add("user", [login], "<user>")
    add("words", rules.words, "<redacted>", re.IGNORECASE)
    return out


def _worth(folder: str, homes: Iterable[str]) -> bool:
    """An absolute folder worth masking: not the root or a drive, not a home itself (that is ``~``)."""
    bare = folder.rstrip("/\\")
    absolute = bare.startswith(("/", "\\")) or bare[1:3] in (":\\", ":/")
    return absolute and len(bare) > 3 and bare not in {h.rstrip("/\\") for h in homes}


def _spellings(folder: str) -> list[str]:
    """A folder as it is written: as it is, with \\ for / (and doubled, as JSON and strings write it)."""
    folder = folder.rstrip("/\\")
    return [folder, folder.replace("/", "\\"), folder.replace("/", "\\\\"), folder.replace("\\", "/")]


def _internal(extra: Iterable[str]) -> re.Pattern:
    """An internal domain's ending (``.corp``), found by its dot; the labels before it are read back."""
    domains = "|".join(re.escape(d.strip(".").lower()) for d in (*INTERNAL, *extra) if d.strip("."))
    return re.compile(rf"\.(?:{domains})(?![\w-]|\.\w)", re.IGNORECASE)


def _before(text: str, at: int, also: str, most: int) -> int | None:
    """Where the run of letters, digits and ``also`` ending at ``at`` starts, read back a character at a time
    (a search would try each place of the window); None: none, or longer than ``most``."""
    start, floor = at, max(0, at - most)
    while start > floor and (text[start - 1].isalnum() or text[start - 1] in also):
        start -= 1
    if start == at or start == floor and start and (text[start - 1].isalnum() or text[start - 1] in also):
        return None
    return start


def _emails(text: str) -> Iterable[tuple[int, int]]:
    for m in _AT.finditer(text):
        start = _before(text, m.start(), "_.%+-", 64)
        if start is None:
            continue
        local = text[start:m.start()].lower()
        if m[2].lower() in _FILE_ENDINGS or _NOT_MAIL_DOMAINS.search(m[1]) \
                or local in ("noreply", "no-reply", "git"):  # git@github.com:org/repo is ssh's user, nobody's
            continue
        yield start, m.end()


def _ipv4(text: str) -> Iterable[tuple[int, int]]:
    for m in _DOTTED.finditer(text):
        before, after = text[m.start() - 1:m.start()], text[m.end():m.end() + 2]
        if before and (before.isalnum() or before in "._") or after[:1] and (after[:1].isalnum() or after[:1] in "_-") \
                or after[:1] == "." and after[1:].isdigit():
            continue  # part of a longer word or number
        try:
            address = ipaddress.IPv4Address(m[0])  # refuses an octet over 255, and leading zeros
        except ValueError:
            continue
        if address.is_loopback or address.is_unspecified or m[0].startswith("255.") or _documented(address):
            continue
        if _VERSIONED.search(text[max(0, m.start() - 8):m.start()]):
            continue
        yield m.start(), m.end()


def _ipv6(text: str) -> Iterable[tuple[int, int]]:
    candidates = []
    at = text.find("::")
    while at >= 0:
        start = at
        while start > max(0, at - 40) and text[start - 1] in _HEX:
            start -= 1
        end = _HEX_RUN.match(text, at).end()
        candidates.append((start, end))
        at = text.find("::", end)
    if text.count(":") >= 7 and _TWO_GROUPS.search(text):
        candidates += [m.span() for m in _FULL_V6.finditer(text)]
    for start, end in sorted(set(candidates)):
        word = text[start:end]
        if start and (text[start - 1].isalnum() or text[start - 1] in "_.") or text[end:end + 1].isalnum():
            continue
        try:
            address = ipaddress.IPv6Address(word)
        except ValueError:
            continue
        if address.is_loopback or address.is_unspecified or not any(c.isdigit() for c in word) \
                or _documented(address):
            continue
        yield start, end


_DOCUMENTED = tuple(ipaddress.ip_network(n) for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24",
                                                      "2001:db8::/32"))


def _documented(address) -> bool:
    """An address of the ranges kept for documentation (RFC 5737, 3849): an example, nobody's."""
    return any(address.version == n.version and address in n for n in _DOCUMENTED)


def _around(text: str, start: int, end: int, shown: str) -> str:
    """``shown`` in place of text[start:end] with the text around it, on one line."""
    before = text[max(0, start - CONTEXT):start].rsplit("\n", 1)[-1]
    after = text[end:end + CONTEXT].split("\n", 1)[0]
    return f"{before}{shown}{after}"
