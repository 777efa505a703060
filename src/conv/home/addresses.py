"""What looks like an address of someone's (home/redaction.py masks them):
e-mail addresses, IPv4 and IPv6 addresses, host names under an internal
domain. Each found by its one character (``@``, a dot, ``::``), read back
from there a character at a time, and held to what it must be (ipaddress
checks the numbers): a version number, a slice, a module path, an image's
``@2x`` or an example's address are none. And the hosts the user's own
``~/.ssh/config`` names (``ssh_hosts``): a short name such as ``db01``
has no domain to be found by."""

import ipaddress
import re
from collections.abc import Iterable

INTERNAL = ("internal", "corp", "local", "lan", "intranet", "home.arpa")

_LABELS = r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"
_AT = re.compile(rf"(?:@|&#0*64;|&#[xX]0*40;|&commat;|%40)({_LABELS}([A-Za-z]{{2,24}}))(?![\w-]|\.\w)")  # a
# domain found by its @, as written or as an entity or a URL writes it
_NOT_MAIL_DOMAINS = re.compile(r"(?:^|\.)(?:example\.(?:com|org|net)|[^.]+\.(?:test|example|invalid|localhost))$",
                               re.IGNORECASE)  # RFC 2606's names: what documentation uses
_FILE_ENDINGS = frozenset("png jpg jpeg gif svg webp ico js mjs ts tsx jsx json css scss py md txt html yaml yml "
                          "toml lock rs go java rb sh pdf zip".split())  # icon@2x.png is a file
_DOTTED = re.compile(r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}")  # an IPv4 address, or a version's numbers
_VERSIONED = re.compile(r"(?:v|version |==|>=|<=|~=|\^)$", re.IGNORECASE)  # what a version number follows
_HEX = frozenset("0123456789abcdefABCDEF:.")  # and the dots of an IPv4 address written in one
_HEX_RUN = re.compile(r"[0-9A-Fa-f:.]*")
_TWO_GROUPS = re.compile(r":[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:")  # found by its colon: the full form may be here
_FULL_V6 = re.compile(r"[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){7}")
_HOST_BACK = re.compile(_LABELS)  # a host name's labels, before its internal domain
_CODE_OWNERS = frozenset({"self", "this", "cls", "threading", "obj", "ctx", "os", "np", "window", "document"})


def internal(extra: Iterable[str]) -> re.Pattern:
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


def emails(text: str) -> Iterable[tuple[int, int]]:
    for m in _AT.finditer(text):
        start = _before(text, m.start(), "_.%+-", 64)
        if start is None:
            continue
        local = text[start:m.start()].lower()
        if m[2].lower() in _FILE_ENDINGS or _NOT_MAIL_DOMAINS.search(m[1]) \
                or local in ("noreply", "no-reply", "git"):  # git@github.com:org/repo is ssh's user, nobody's
            continue
        yield start, m.end()


def ipv4(text: str) -> Iterable[tuple[int, int]]:
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


def ipv6(text: str) -> Iterable[tuple[int, int]]:
    candidates = []
    at = text.find("::")
    while at >= 0:
        start = at
        while start > max(0, at - 40) and text[start - 1] in _HEX:
            start -= 1
        end = _HEX_RUN.match(text, at).end()
        while text[end - 1] == "." and end > at:  # a sentence's full stop
            end -= 1
        while text[start] == ".":
            start += 1
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
        digits = sum(c in "0123456789abcdefABCDEF" for c in word)
        if address.is_loopback or address.is_unspecified or not any(c.isdigit() for c in word) or digits < 5 \
                or _documented(address):  # under 5 digits: a[1::2] is a slice
            continue
        yield start, end


_DOCUMENTED = tuple(ipaddress.ip_network(n) for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24",
                                                      "2001:db8::/32"))


def _documented(address) -> bool:
    """An address of the ranges kept for documentation (RFC 5737, 3849): an example, nobody's."""
    return any(address.version == n.version and address in n for n in _DOCUMENTED)


def internal_hosts(pattern: re.Pattern, text: str) -> Iterable[tuple[int, int]]:
    """Host names under an internal domain (``pattern``: ``internal``'s), not a name in code (threading.local,
    @pytest.mark.local); after a user's ``@`` too (git@gitlab.acme.internal, which no e-mail takes)."""
    for m in pattern.finditer(text):
        start = _before(text, m.start() + 1, ".-", 253)
        after_at = start is not None and start > 1 and text[start - 1] == "@" and not text[start - 2].isspace()
        # (a user's, or a password's end before it: ://admin:S3cr3t!@db.internal, ://***@db.internal)
        if start is None or start and text[start - 1] in "_@" and not after_at or text[start] in ".-" \
                or not _HOST_BACK.fullmatch(text, start, m.start() + 1):
            continue
        if text[start:m.start()].split(".", 1)[0].lower() not in _CODE_OWNERS and text[m.end():m.end() + 1] != "(":
            yield start, m.end()


PUBLIC_HOSTS = frozenset({"github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "ssh.dev.azure.com",
                          "vs-ssh.visualstudio.com", "git.sr.ht", "heroku.com", "localhost", "github", "gitlab",
                          "bitbucket", "codeberg"})  # everyone's: a word of prose, no one's machine
_SSH_LINE = re.compile(r"^\s*(Host|HostName|Include)\s*=?\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)


def ssh_hosts(home: str, most: int = 200) -> tuple[str, ...]:
    """The machines ``home``'s ``.ssh/config`` (and what it includes) names: each HostName, and each Host
    alias that reads as a machine's name (a digit, a dot or a hyphen in it: ``db01``, ``build-box``; ``prod``
    or ``bastion`` are words of prose too); no pattern, address or public code host."""
    import glob
    import os

    ssh, found, files, read = os.path.join(home, ".ssh"), [], [os.path.join(home, ".ssh", "config")], set()
    while files and len(read) < 50:  # a file that includes itself is read once
        path = os.path.realpath(files.pop(0))
        if path in read:
            continue
        read.add(path)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read(1 << 20)
        except OSError:
            continue
        for key, value in _SSH_LINE.findall(text):
            if key.lower() == "include":  # relative to ~/.ssh, as ssh reads it
                for pattern in value.split():
                    pattern = home + pattern[1:] if pattern.startswith("~/") else pattern
                    files += sorted(glob.glob(os.path.join(ssh, pattern)))[:20]
                continue
            for name in value.strip('"').split():
                named = name.lower()
                wordlike = key.lower() == "host" and not any(c in named for c in "0123456789.-")
                if len(named) < 3 or any(c in named for c in "*?!%") or named in PUBLIC_HOSTS or wordlike \
                        or _is_address(named):
                    continue
                found.append(named)
    return tuple(dict.fromkeys(found))[:most]


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False
