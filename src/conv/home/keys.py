"""Every setting conv reads: its name, what it may hold, its default and help.

A parser takes a value as typed (``conv config set``) or as YAML read it (a
number, a string, a list, ``.nan``…) and returns it checked, or raises
ValueError saying what is allowed: a bad setting is refused where it is
written or read, never found later by a request that fails."""

import math
import os
import re
from typing import Any, Callable

from ..errors import UsageError
from ..records import dataclass


def _finite(value: Any) -> float | None:
    """The value as a finite number, or None (a list, yes/no, nan, inf, 1e999, many)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    try:
        number = float(value)
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def positive_float(value: Any) -> float:
    number = _finite(value)
    if number is None or number <= 0:
        raise ValueError("use a number above 0, e.g. 10")
    return number


def positive_int(value: Any) -> int:
    number = _finite(value)
    if number is None or number <= 0 or not number.is_integer():
        raise ValueError("use a whole number above 0, e.g. 20")
    return int(number)


def temperature(value: Any) -> float:
    number = _finite(value)
    if number is None or not 0 <= number <= 2:
        raise ValueError("use a number from 0 to 2")
    return number


def price(value: Any) -> float:
    number = _finite(value)
    if number is None or number < 0:
        raise ValueError("use a price of 0 or more (US dollars per million tokens)")
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


@dataclass(frozen=True)
class Key:
    parse: Callable[[Any], Any]
    default: Any
    help: str


KEYS: dict[str, Key] = {
    "model": Key(one_line, None, "default model, e.g. gpt-4o-mini (CONV_MODEL and -m win)"),
    "base_url": Key(one_line, None, "OpenAI-compatible server URL (OPENAI_BASE_URL wins)"),
    "api_key": Key(one_line, None, "API key of that server (OPENAI_API_KEY wins); never shown"),
    "session.expiry": Key(duration, "24h", "idle time after which a terminal's follow-up starts a new conversation"),
    "context.max_messages": Key(positive_int, None, "send at most this many earlier messages"),
    "context.max_tokens": Key(positive_int, None, "send at most about this many tokens of earlier messages (unset: what the model's window holds)"),
    "context.resume_after": Key(idle_time, "1h", "a follow-up after this long a break tells the model so, with the "
                                "conversation's title and summary (off: never)"),
    "feedback.window": Key(idle_time, "10m", "how soon after an answer a plain conv ask may be read as feedback "
                           "on it or a follow-up (off: never)"),
    "feedback.negative": Key(comma_list, None, "more phrases that mean the last answer was wrong (besides conv's own)"),
    "feedback.continue": Key(comma_list, None, "more phrases that follow up the last answer (ending in a space: "
                             "a line starting with it)"),
    "feedback.classifier": Key(one_line, None, "a model that decides instead of the phrases (e.g. gpt-4o-mini)"),
    "render": Key(render_mode, "markdown", "answers on a terminal: markdown (rendered as they stream) or plain"),
    "timeout.connect": Key(positive_float, 10.0, "seconds to wait for the model server to accept"),
    "timeout.read": Key(positive_float, 120.0, "seconds to wait for the next bytes of an answer"),
    "tls.ca_file": Key(readable_file, None, "a CA certificate file (PEM) trusted besides the system's, for a server "
                       "with a private CA (SSL_CERT_FILE replaces the system's instead)"),
    "sync.auto": Key(one_line, None, "a remote to sync with in the background after each answer (at most once a minute)"),
    "hooks.timeout": Key(positive_float, 10.0, "seconds a store hook may take before conv gives up on it"),
    "local.model": Key(one_line, None, "GGUF file for the local provider (default: SmolLM2-135M-Instruct, "
                       "fetched by conv models pull)"),
    "local.context": Key(positive_int, 4096, "context window of the local model, in tokens"),
    "local.max_answer": Key(positive_int, 512, "most tokens the local model writes in one answer"),
    "local.keep_alive": Key(duration, "5m", "how long the local model stays loaded after its last answer, so the "
                            "next starts at once (0: unloaded after each)"),
    "local.threads": Key(positive_int, None, "CPU threads the local model computes on (unset: every core for the "
                         "prompt, half of them for the answer)"),
}

# keys with a name in the middle: agents.NAME.FIELD and prices.MODEL.FIELD
PATTERNS: dict[str, Key] = {
    "agents.*.system": Key(text, None, "the agent's system prompt"),
    "agents.*.model": Key(one_line, None, "the agent's model, or PROVIDER:MODEL"),
    "agents.*.temperature": Key(temperature, None, "the agent's sampling temperature, 0 to 2"),
    "agents.*.context.max_messages": Key(positive_int, None, "context.max_messages for this agent's conversations"),
    "agents.*.context.max_tokens": Key(positive_int, None, "context.max_tokens for this agent's conversations"),
    "prices.*.input": Key(price, None, "US dollars per million prompt tokens of model * (its name as conv records it)"),
    "prices.*.output": Key(price, None, "US dollars per million answer tokens of model *"),
    "endpoints.*.base_url": Key(one_line, None, "an OpenAI- or Anthropic-compatible server, e.g. https://api.groq.com/openai/v1"),
    "endpoints.*.api": Key(api_kind, "openai", "the API it speaks: openai or anthropic"),
    "endpoints.*.key_env": Key(env_name, None, "the environment variable that holds its key"),
    "endpoints.*.key_cmd": Key(one_line, None, "a command that prints its key (e.g. pass show groq), run only when it is used"),
    "endpoints.*.headers": Key(header_map, None, "more HTTP headers sent to it"),
    "endpoints.*.models": Key(comma_list, None, "its models, for conv models and completion (comma-separated)"),
    "aliases.*": Key(endpoint_model, None, "a short name for ENDPOINT:MODEL, usable wherever a model is"),
}
SECTIONS = ("agents", "prices", "endpoints", "aliases")  # the mappings whose keys are names
RESERVED = ("openai", "anthropic", "ollama", "local", "cmd")  # provider names an endpoint cannot take


def spec(key: str, where: str = "") -> Key:
    """The declaration of ``key``; an unknown key (``where`` it was found) is refused."""
    if key in KEYS:
        return KEYS[key]
    found = _pattern(key)
    if found is None:
        raise unknown(key, where)
    pattern, section, name = found
    if section in ("agents", "endpoints", "aliases"):
        try:
            agent_name(name)
        except ValueError as exc:
            raise UsageError(f"bad {section[:-1]} name {name!r}{where}: {exc.args[0].replace('an agent', 'a')}") from None
        if section == "endpoints" and name in RESERVED:
            raise UsageError(f"{name!r} is a provider of conv's own{where}", "Give the endpoint another name")
    return PATTERNS[pattern]


def unknown(key: str, where: str = "") -> UsageError:
    return UsageError(f"unknown config key {key!r}{where}", "Known keys: " + ", ".join([*KEYS, *PATTERNS]))


def parts(key: str) -> list[str]:
    """The path of ``key`` in the YAML mappings (a price's model name may hold dots)."""
    found = _pattern(key)
    if found is None:
        return key.split(".")
    pattern, section, name = found
    field = pattern.partition(".*.")[2]
    return [section, name, *(field.split(".") if field else [])]


def kind(path: list[str]) -> str:
    """What the mapping path ``path`` (as nested in the file) names: a
    "setting", a "section" holding settings (``timeout``, ``agents.coder``)
    or something "unknown". Under agents and prices the second part is a
    name, whatever it holds (model names have dots)."""
    if path[0] == "aliases":  # aliases.NAME is a setting itself
        return "section" if len(path) == 1 else "setting" if len(path) == 2 else "unknown"
    if path[0] in SECTIONS:
        if len(path) <= 2:
            return "section"
        field = f"{path[0]}.*.{'.'.join(path[2:])}"
        names = PATTERNS
    else:
        field, names = ".".join(path), KEYS
    if field in names:
        return "setting"
    return "section" if any(name.startswith(field + ".") for name in names) else "unknown"


def _pattern(key: str) -> tuple[str, str, str] | None:
    """(pattern, section, name) for a key such as prices.gpt-4.1.input."""
    for pattern in PATTERNS:
        if pattern.endswith(".*"):  # aliases.NAME
            section = pattern[:-2]
            if key.startswith(section + ".") and "." not in key[len(section) + 1:]:
                return pattern, section, key[len(section) + 1:]
            continue
        section, _, field = pattern.partition(".*.")
        if key.startswith(section + ".") and key.endswith("." + field):
            name = key[len(section) + 1 : -len(field) - 1]
            if name:
                return pattern, section, name
    return None
