"""What a setting may hold: each parser takes a value as typed (``conv config
set``) or as YAML read it (a number, a string, a list, ``.nan``…) and returns
it checked, or raises ValueError saying what is allowed. A bad value is
refused where it is written or read, never found later by a request that
fails; numbers have ranges, so one that is absurd (``1e308`` seconds) is as
refused as one that is malformed. keys.py says which setting takes which."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of every follow-up): PEP 781's idiom
if TYPE_CHECKING:
    from typing import Any


def _finite(value: Any) -> float | None:
    """The value as a finite number, or None (a list, yes/no, nan, inf, 1e999, many)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    try:
        number = float(value)
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def seconds(most: float) -> Callable[[Any], float]:
    """A number of seconds above 0 and up to ``most``."""
    def parse(value: Any) -> float:
        number = _finite(value)
        if number is None or not 0 < number <= most:
            raise ValueError(f"use a number of seconds above 0 and up to {most:g}, e.g. 10")
        return number
    return parse


def whole(least: int, most: int) -> Callable[[Any], int]:
    """A whole number from ``least`` to ``most``."""
    def parse(value: Any) -> int:
        number = _finite(value)
        if number is None or not number.is_integer() or not least <= number <= most:
            raise ValueError(f"use a whole number from {least:,} to {most:,}")
        return int(number)
    return parse


def temperature(value: Any) -> float:
    number = _finite(value)
    if number is None or not 0 <= number <= 2:
        raise ValueError("use a number from 0 to 2")
    return number


def price(value: Any) -> float:
    number = _finite(value)
    if number is None or not 0 <= number <= 10_000_000:
        raise ValueError("use a price from 0 to 10000000 (US dollars per million tokens)")
    return number


_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_CENTURY = 100 * 365.25 * 86400  # ages go back from now: far enough, and within what dates can hold


def duration(value: Any) -> float:
    """Seconds from ``90s``, ``30m``, ``24h``, ``7d`` or a bare number of seconds."""
    match = None if isinstance(value, bool) else re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*", str(value))
    seconds = float(match[1]) * _SECONDS[match[2]] if match else math.inf
    if not seconds <= _CENTURY:  # no match, more digits than a float holds, or before any date
        raise ValueError("use a number with s, m, h, d or w up to 100 years, e.g. 24h")
    return seconds


def duration_within(least: float, most: float, example: str) -> Callable[[Any], float]:
    """A duration (as ``duration`` reads it) from ``least`` to ``most`` seconds."""
    def parse(value: Any) -> float:
        seconds = duration(value)
        if not least <= seconds <= most:
            raise ValueError(f"use a duration from {_spoken(least)} to {_spoken(most)}, e.g. {example}")
        return seconds
    return parse


def _spoken(seconds: float) -> str:
    for unit in ("w", "d", "h", "m"):
        if seconds and seconds % _SECONDS[unit] == 0:
            return f"{seconds // _SECONDS[unit]:g}{unit}"
    return f"{seconds:g}s"


def text(value: Any) -> str:
    """Any UTF-8 text (a system prompt may span lines)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError("use text, a single value (not a list, a mapping or yes/no)")
    value = str(value)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("use UTF-8 text") from None
    return value


def one_line(value: Any) -> str:
    """A name, a URL or a path: text on one line, without control characters."""
    value = text(value)
    if not value.strip() or re.search(r"[\x00-\x1f\x7f-\x9f]", value):
        raise ValueError("use one line of text without control characters")
    return value


def http_url(value: Any) -> str:
    """A server's address: http(s), with a host (and a port, if any, that is one)."""
    from urllib.parse import urlsplit  # here: only a URL being checked needs it

    value = one_line(value).strip()
    parts = urlsplit(value)
    try:
        parts.port  # noqa: B018 - raises for a port that is none
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("use an http:// or https:// URL with a host, e.g. https://api.groq.com/openai/v1")
    return value


def readable_file(value: Any) -> str:
    """A file that exists and can be read, by its full path (``~`` allowed):
    the value is used from whatever directory conv later runs in."""
    path = os.path.expanduser(one_line(value))
    if not os.path.isabs(path):
        raise ValueError("give its full path, e.g. ~/certs/company-ca.pem")
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise ValueError("no readable file there")
    return path


def idle_time(value: Any) -> float:
    """A duration, or ``off`` (0: never)."""
    if isinstance(value, bool) and not value or str(value).strip().lower() in ("off", "never", "no", "false"):
        return 0.0
    try:
        return duration(value)
    except ValueError:
        raise ValueError("use a duration such as 1h, 30m or 2d, or off") from None


def switch(value: Any) -> bool:
    """On or off (``on``/``off``, ``true``/``false``, ``yes``/``no``, as typed or as YAML reads them)."""
    if isinstance(value, bool):
        return value
    word = one_line(value).strip().lower()
    if word in ("on", "true", "yes", "1"):
        return True
    if word in ("off", "false", "no", "0"):
        return False
    raise ValueError("use on or off")


def comma_list(value: Any) -> tuple[str, ...]:
    """A list of short texts (in YAML, or typed as ``a, b, c``)."""
    items = value if isinstance(value, list) else str(text(value)).split(",")
    try:
        found = tuple(one_line(item).strip() for item in items if str(item).strip())
    except ValueError:
        found = ()
    if not found:
        raise ValueError('use a list separated by commas, e.g. "nah, rubbish"')
    return found


def folders(value: Any) -> tuple[str, ...]:
    """Folders, each absolute or under ``~`` (in YAML a list, or typed as ``~/private, /srv/clients``)."""
    try:
        found = comma_list(value)
    except ValueError:
        raise ValueError("use folders separated by commas, e.g. ~/private, /srv/clients") from None
    for folder in found:
        if not os.path.isabs(os.path.expanduser(folder)):
            raise ValueError(f"{folder!r} is no absolute folder: give it from / or ~")
    return found


def expressions(value: Any) -> tuple[str, ...]:
    """Regular expressions (Python's), each checked to compile and not to take forever (in YAML a list: a
    comma may be in one)."""
    from . import slow_patterns

    found = tuple(str(one_line(v)) for v in value) if isinstance(value, list) else (one_line(value),)
    for pattern in found:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{pattern!r} is no regular expression ({exc})") from None
        if re.compile(pattern).fullmatch(""):
            raise ValueError(f"{pattern!r} matches nothing as well: give one that needs a character")
        said = slow_patterns.why_slow(pattern)
        if said:
            raise ValueError(f"{pattern!r} {said}")
    return found


REDACTED = ("home", "project", "user", "host", "git", "email", "ip", "internal-host", "words")  # home/redaction.py's


def redaction_kinds(value: Any) -> tuple[str, ...]:
    """Kinds of conv's redaction (redact.off)."""
    found = comma_list(value)
    for kind in found:
        if kind not in REDACTED:
            raise ValueError(f"{kind!r} is no kind of redaction: use {', '.join(REDACTED)}")
    return found


def render_mode(value: Any) -> str:
    value = one_line(value).strip().lower()
    if value not in ("markdown", "plain"):
        raise ValueError("use markdown or plain")
    return value


def api_kind(value: Any) -> str:
    value = one_line(value).strip().lower()
    if value not in ("openai", "anthropic"):
        raise ValueError("use openai (the chat completions API most services speak) or anthropic")
    return value


def env_name(value: Any) -> str:
    value = one_line(value).strip()
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
        raise ValueError("use the name of an environment variable, e.g. GROQ_API_KEY")
    return value


def header_map(value: Any) -> dict[str, str]:
    """HTTP headers: a YAML mapping, or typed as ``Name: value, Name2: value``."""
    if isinstance(value, str):
        value = dict(item.partition(":")[::2] for item in value.split(",") if item.strip())
    if not isinstance(value, dict) or not value:
        raise ValueError('use a mapping of header names to values, e.g. "HTTP-Referer: https://example.org"')
    out = {}
    for name, text_value in value.items():
        name = str(name).strip()
        if not re.fullmatch(r"[A-Za-z0-9-]+", name):
            raise ValueError(f"{name!r} is not a header name")
        out[name] = one_line(str(text_value).strip())
    return out


def endpoint_model(value: Any) -> str:
    """An alias's target: ENDPOINT:MODEL (or any model spec)."""
    value = one_line(value).strip()
    if ":" not in value or not value.partition(":")[2].strip():
        raise ValueError("use ENDPOINT:MODEL, e.g. groq:llama-3.3-70b-versatile")
    return value


def agent_name(name: str) -> str:
    """Agent names become id prefixes (coder-k3f9x2…): lower-case letters,
    digits and inner dashes."""
    if not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", name) or len(name) > 24:
        raise ValueError("an agent name is up to 24 lower-case letters, digits and dashes, starting with a letter")
    return name
