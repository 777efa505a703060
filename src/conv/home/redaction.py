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
before anything is written. The user's values are found as words (``ana``
in ``ana-notes.md``, never in ``banana``) and folders wherever they begin;
what only looks like an address is addresses.py's. The clean prose and code
of a developer must come out unchanged."""

import re
from collections.abc import Iterable

from ..records import dataclass, field
from . import addresses
from .secrets import MASK, masked, spans
from .values import REDACTED

KINDS = REDACTED  # in the order a preview shows them; redact.off names them
GENERIC_USERS = frozenset({"root", "admin", "user", "ubuntu", "debian", "runner", "vscode", "node", "codespace",
                           "dev", "guest", "test"})  # a login everyone has: a word of prose, not a person
SAMPLES, CONTEXT = 3, 24  # per kind; characters of context each side
CUT_LEAST = 4  # characters of a value of the user's a cut must have left for them to be masked as the value
GENERIC_HOSTS = frozenset({"localhost", "ubuntu", "debian", "raspberrypi", "devbox", "runner"})
_PLACEHOLDER = re.compile(r"<(?:email|ip|host)-\d+>")
_CODE_AFTER = re.compile(r"(?:\.[A-Za-z_]\w*)+[(\[]|\(")  # what follows a name in code (app.route(, app():
# no login there; ana.log or ana.silva is the login, as a file or a name)


def _word_before(text: str, at: int) -> bool:
    """Whether the character before ``at`` goes on a word (a letter, a digit, _)."""
    return 0 < at <= len(text) and (text[at - 1].isalnum() or text[at - 1] == "_")


def _alone(text: str, start: int, end: int, kind: str) -> bool:
    """Whether a value found at text[start:end] is a word of its own (``ana`` in ``ana-notes.md``, not in
    ``banana``), and a login no name in code (``@app.route`` for the login app)."""
    if start and (text[start - 1].isalnum() or text[start - 1] == "_"):
        return False
    return kind != "user" or not _CODE_AFTER.match(text, end)




@dataclass
class Mine:
    """The user's own values, each found exactly where it appears."""
    homes: tuple[str, ...] = ()  # absolute folders: shown as ~
    login: str = ""
    host: str = ""
    git_name: str = ""
    git_email: str = ""
    roots: tuple[str, ...] = ()  # the projects' absolute roots: shown as <project>
    machines: tuple[str, ...] = ()  # the hosts ~/.ssh/config names (addresses.ssh_hosts): numbered as <host-N>


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
        self._taken: set[str] = set()  # placeholders given, or in the texts already (``taken``)
        self._exact = _exact_rules(mine, rules)
        self._login = _login(mine).lower()  # /home/LOGIN and C:\\Users\\LOGIN however they are spelled
        self._internal = addresses.internal(rules.hosts)
        self._off = set(rules.off)
        self._patterns = [re.compile(p) for p in rules.patterns] if "words" not in self._off else []
        self._cut_values = [(kind, value.lower(), shown, CUT_LEAST + len(value) - len(_last_part(value)))
                            for kind, _, shown, _, values in self._exact if kind != "project" for value in values
                            if len(value) > CUT_LEAST]  # (a project's last folder is a word of prose: "…billing
        # is down"; of a home, what a cut leaves must reach into its last folder: "/home/…" is everyone's)

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
        lower = lower if len(lower) == len(text) else text  # (a letter lowered to two: offsets as written)
        for kind, pattern, shown, needles, _ in self._exact:
            if any(needle in lower for needle in needles):
                found += [(m.start(), m.end(), kind, shown) for m in pattern.finditer(text)
                          if kind in ("home", "project") or _alone(text, m.start(), m.end(), kind)]
        if self._login and "home" not in self._off and self._login in lower:
            found += [(s, e, "home", "~") for s, e in _homes_of(self._login, text, lower)]
        if "…" in text:
            found += self._cut(text, lower)
        for kind, pattern in self._patterns_of(text):
            found += [(s, e, kind, None) for s, e in pattern(text)]  # numbered once kept
        found.sort(key=lambda span: (span[0], -span[1]))
        whole = [(m.start(), m.end()) for k in self._keep if k in text for m in re.finditer(re.escape(k), text)]
        kept, last = [], 0
        for span in found:
            if span[0] >= last and span[1] > span[0]:
                last = span[1]  # taken, even where it is kept whole: nothing inside it is masked on its own
                if any(a < span[1] and span[0] < b for a, b in whole) and span[2] != "key":
                    continue
                if span[3] is None:
                    span = (*span[:3], self._number(span[2], text[span[0]:span[1]]))
                kept.append(span)
                was = text[span[0]:span[1]] if span[2] != "key" else text[span[0]:span[0] + 6] + "…"
                self.report.add(span[2], was, _around(text, *span[:2], was), _around(text, *span[:2], span[3]))
        return kept

    def _cut(self, text: str, lower: str) -> list[tuple[int, int, str, str | None]]:
        """What a cut (…: a title, a search's snippet) left of a value of the user's, masked as the value is: its
        start before the mark (``Marisol…``, ``ardenwood-7f…``), its end after one (``…Quintanilla-Ybarra``),
        and an e-mail address cut after its @."""
        found = []
        for mark in re.finditer("…", text):
            at, before, after = mark.start(), [], []
            for kind, value, shown, least in self._cut_values:
                for n in range(min(len(value) - 1, at), least - 1, -1):
                    if lower.startswith(value[:n], at - n) and not _word_before(text, at - n):
                        before.append((not value[n].isalnum(), n, (at - n, at, kind, shown)))  # cut at its word's end
                        break
                for n in range(min(len(value) - 1, len(text) - at - 1), CUT_LEAST - 1, -1):
                    if kind != "home" and lower.startswith(value[-n:], at + 1) \
                            and not _word_before(text, at + 1 + n + 1):
                        after.append((not value[-n - 1].isalnum(), n, (at + 1, at + 1 + n, kind, shown)))
                        break
            found += [max(side)[2] for side in (before, after) if side]  # a word of the value whole, the longest
            if "email" not in self._off:
                start = at
                while start and not text[start - 1].isspace() and text[start - 1] not in "<>\"'(),;:[]{}":
                    start -= 1
                if "@" in text[start:at].lstrip("@") and text[at - 1] != "@":
                    found.append((start, at, "email", None))
        return found

    def _patterns_of(self, text: str):  # each only where its one character is
        if "email" not in self._off and ("@" in text or "&#" in text or "%40" in text or "&commat;" in text):
            yield "email", addresses.emails
        if "." in text:
            if "ip" not in self._off:
                yield "ip", addresses.ipv4
            if "internal-host" not in self._off:
                yield "internal-host", lambda t: addresses.internal_hosts(self._internal, t)
        if "ip" not in self._off and ("::" in text or text.count(":") >= 7):
            yield "ip", addresses.ipv6
        for pattern in self._patterns:
            yield "words", lambda t, p=pattern: ((m.start(), m.end()) for m in p.finditer(t))

    def taken(self, texts) -> None:
        """The placeholders ``texts`` hold already (masked by someone else: a teammate's turns in a conversation
        one continued) are numbers this redactor gives no other value."""
        for text in texts:
            if "<" in text:
                self._taken.update(_PLACEHOLDER.findall(text))

    def _number(self, kind: str, value: str) -> str:
        if kind == "words":
            return "<redacted>"
        key = (kind, value.lower())
        if key not in self._numbers:
            name, n = "host" if kind == "internal-host" else kind, sum(k == kind for k, _ in self._numbers) + 1
            while f"<{name}-{n}>" in self._taken:
                n += 1
            self._numbers[key] = f"<{name}-{n}>"
            self._taken.add(self._numbers[key])
        return self._numbers[key]



def _exact_rules(mine: Mine, rules: Rules) -> list[tuple[str, re.Pattern, str | None, tuple[str, ...], list[str]]]:
    """The user's own values and ``redact.words``: (kind, expression, shown instead (None: numbered), what the
    text must hold, lowercased, for the expression to be tried: the last part of each value, the values), longest
    values first. A word must stand alone (not ``ana`` in ``banana``); a folder is one wherever it begins
    (``\\n/home/ana`` in JSON)."""
    off, out = set(rules.off), []

    def add(kind: str, values: Iterable[str], shown: str | None, flags=0) -> None:
        values = sorted({v for v in values if v}, key=len, reverse=True)
        if values and kind not in off:
            body = "|".join(map(re.escape, values))
            needles = tuple({_last_part(v).lower() or v.lower() for v in values})
            end = r"(?![\w-])" if kind in ("home", "project", "internal-host") else r"(?!\w)"  # /home/ana-old,
            out.append((kind, re.compile(f"(?:{body}){end}", flags), shown, needles, values))  # db01-old: others

    add("project", [s for r in mine.roots if _worth(r, mine.homes) for s in _spellings(r)], "<project>")
    login = _login(mine)
    add("home", [s for h in mine.homes if _worth(h, ()) for s in _spellings(h)], "~")
    add("git", [mine.git_email], "<email>", re.IGNORECASE)
    add("git", [mine.git_name] if len(mine.git_name) >= 3 else [], "<name>", re.IGNORECASE)
    host = mine.host if mine.host.lower() not in GENERIC_HOSTS else ""
    add("host", [host, host.split(".")[0]] if len(host) >= 3 else [], "<host>", re.IGNORECASE)
    add("user", [login], "<user>")
    add("internal-host", mine.machines, None, re.IGNORECASE)  # numbered, as the hosts of internal domains
    add("words", rules.words, "<redacted>", re.IGNORECASE)
    return out


def _last_part(value: str) -> str:
    """A folder's last part, however it is spelled (/, \\, %2F); a value that is no folder whole."""
    return re.split(r"[/\\]|%2[fF]", value)[-1]


def _login(mine: Mine) -> str:
    """The login to mask: not a login everyone has, nor one of two letters."""
    return mine.login if len(mine.login) >= 3 and mine.login.lower() not in GENERIC_USERS else ""


_HOME_BEFORE = re.compile(r"(?:[A-Za-z]:|/mnt/[A-Za-z]|/[A-Za-z])?(?:\\{1,4}|/|%2F)(?:home|users)(?:\\{1,4}|/|%2F)\Z",
                          re.IGNORECASE)  # what comes before the login in a home folder, on any system


def _homes_of(login: str, text: str, lower: str) -> list[tuple[int, int]]:
    """Each home folder named by ``login`` (/home/ana, C:\\Users\\ANA, /mnt/c/Users/ana, %2Fhome%2Fana), found
    by the login (a scan of the lowered text) and read back from it."""
    found, at = [], lower.find(login)
    while at >= 0:
        end = at + len(login)
        before = _HOME_BEFORE.search(text, max(0, at - 16), at)
        if before and not (text[end:end + 1].isalnum() or text[end:end + 1] in ("_", "-")):
            found.append((before.start(), end))
        at = lower.find(login, end)
    return found


def _worth(folder: str, homes: Iterable[str]) -> bool:
    """An absolute folder worth masking: not the root or a drive, not a home itself (that is ``~``)."""
    bare = folder.rstrip("/\\")
    absolute = bare.startswith(("/", "\\")) or bare[1:3] in (":\\", ":/")
    return absolute and len(bare) > 3 and bare not in {h.rstrip("/\\") for h in homes}


def _spellings(folder: str) -> list[str]:
    """A folder as it is written: as it is, with \\ for / (and doubled, as JSON and strings write it), with
    \\/ (JSON's escaped slash) and %2F (a URL's)."""
    folder = folder.rstrip("/\\")
    return [folder, folder.replace("/", "\\"), folder.replace("/", "\\\\"), folder.replace("\\", "/"),
            folder.replace("/", "\\/"), folder.replace("/", "\\\\/"), folder.replace("/", "%2F"),
            folder.replace("/", "%2f")]


def _around(text: str, start: int, end: int, shown: str) -> str:
    """``shown`` in place of text[start:end] with the text around it, on one line."""
    before = text[max(0, start - CONTEXT):start].rsplit("\n", 1)[-1]
    after = text[end:end + CONTEXT].split("\n", 1)[0]
    return f"{before}{shown}{after}"
