"""Every setting conv reads: its name, what it may hold (a parser of
values.py), its default and its help; and the names of the keys that hold
a name in the middle (``agents.NAME.model``, ``aliases.NAME``)."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import UsageError
from ..records import dataclass
from .values import (
    agent_name,
    api_kind,
    comma_list,
    duration_within,
    endpoint_model,
    env_name,
    expressions,
    folders,
    header_map,
    http_url,
    idle_time,
    one_line,
    price,
    readable_file,
    redaction_kinds,
    render_mode,
    seconds,
    switch,
    temperature,
    text,
    whole,
)

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of every follow-up): PEP 781's idiom
if TYPE_CHECKING:
    from typing import Any

HOUR, DAY, WEEK, CENTURY = 3600, 86400, 7 * 86400, 100 * 365.25 * 86400
MESSAGES = whole(1, 100_000)  # context.max_messages, an agent's too
TOKENS = whole(1, 10_000_000)  # context.max_tokens


@dataclass(frozen=True)
class Key:
    parse: Callable[[Any], Any]
    default: Any
    help: str


KEYS: dict[str, Key] = {
    "model": Key(one_line, None, "default model, e.g. gpt-4o-mini (CONV_MODEL and -m win)"),
    "base_url": Key(http_url, None, "OpenAI-compatible server URL (OPENAI_BASE_URL wins)"),
    "api_key": Key(one_line, None, "API key of that server (OPENAI_API_KEY wins); never shown"),
    "session.expiry": Key(duration_within(1, CENTURY, "24h"), "24h", "idle time after which a terminal's follow-up "
                          "starts a new conversation"),
    "context.max_messages": Key(MESSAGES, None, "send at most this many earlier messages"),
    "context.max_tokens": Key(TOKENS, None, "send at most about this many tokens of earlier messages (unset: what the "
                              "model's window holds)"),
    "context.resume_after": Key(idle_time, "1h", "a follow-up after this long a break tells the model so, with the "
                                "conversation's title and summary (off: never)"),
    "feedback.window": Key(idle_time, "10m", "how soon after an answer a plain conv ask may be read as feedback "
                           "on it or a follow-up (off: never)"),
    "feedback.negative": Key(comma_list, None, "more phrases that mean the last answer was wrong (besides conv's own)"),
    "feedback.continue": Key(comma_list, None, "more phrases that follow up the last answer (ending in a space: "
                             "a line starting with it)"),
    "feedback.classifier": Key(one_line, None, "a model that decides instead of the phrases (e.g. gpt-4o-mini)"),
    "files.max_bytes": Key(whole(1, 100_000_000), 5_000_000, "the largest file conv ask -f sends (5 MB: "
                           "Anthropic's limit for an image)"),
    "render": Key(render_mode, "markdown", "answers on a terminal: markdown (rendered as they stream) or plain"),
    "timeout.connect": Key(seconds(HOUR), 10.0, "seconds to wait for the model server to accept"),
    "timeout.read": Key(seconds(HOUR), 120.0, "seconds to wait for the next bytes of an answer"),
    "tls.ca_file": Key(readable_file, None, "a CA certificate file (PEM) trusted besides the system's, for a server "
                       "with a private CA (SSL_CERT_FILE replaces the system's instead)"),
    "sync.auto": Key(one_line, None, "a remote to sync with in the background after each answer "
                     "(at most once a minute)"),
    "import.auto": Key(switch, False, "take in the sessions of every tool conv imports, in the background "
                       "(at most once a minute, after any conv command): tools with no hook, and what a hook missed"),
    "capture.never": Key(folders, None, "folders whose agent sessions are never captured or caught up "
                         "(e.g. ~/private), whatever conv connect connected"),
    "redact.words": Key(comma_list, None, "more words masked in what leaves the machine (share, export, push "
                        "--project, handoff), as <redacted>: a client's or a product's name"),
    "redact.patterns": Key(expressions, None, "regular expressions masked so too (a list in YAML)"),
    "redact.hosts": Key(comma_list, None, "more internal domains, whose host names are masked (besides .internal, "
                        ".corp, .local, .lan, .intranet, .home.arpa)"),
    "redact.off": Key(redaction_kinds, None, "kinds left as they are: home, project, user, host, git, email, ip, "
                      "internal-host, words (keys are always masked)"),
    "hooks.timeout": Key(seconds(HOUR), 10.0, "seconds a store hook may take before conv gives up on it"),
    "local.model": Key(one_line, None, "GGUF file for the local provider (default: SmolLM2-135M-Instruct, "
                       "fetched by conv models pull)"),
    "local.context": Key(whole(256, 1_048_576), 4096, "context window of the local model, in tokens"),
    "local.max_answer": Key(whole(1, 131_072), 512, "most tokens the local model writes in one answer"),
    "local.keep_alive": Key(duration_within(0, WEEK, "5m"), "5m", "how long the local model stays loaded after "
                            "its last answer, so the next starts at once (0: unloaded after each)"),
    "local.threads": Key(whole(1, 1024), None, "CPU threads the local model computes on (unset: every core for the "
                         "prompt, half of them for the answer)"),
}

# keys with a name in the middle: agents.NAME.FIELD and prices.MODEL.FIELD
PATTERNS: dict[str, Key] = {
    "agents.*.system": Key(text, None, "the agent's system prompt"),
    "agents.*.model": Key(one_line, None, "the agent's model, or PROVIDER:MODEL"),
    "agents.*.temperature": Key(temperature, None, "the agent's sampling temperature, 0 to 2"),
    "agents.*.context.max_messages": Key(MESSAGES, None, "context.max_messages for this agent's conversations"),
    "agents.*.context.max_tokens": Key(TOKENS, None, "context.max_tokens for this agent's conversations"),
    "prices.*.input": Key(price, None, "US dollars per million prompt tokens of model * (its name as conv records it)"),
    "prices.*.output": Key(price, None, "US dollars per million answer tokens of model *"),
    "prices.*.cache_read": Key(price, None, "US dollars per million prompt tokens of model * read from a cache "
                                             "(unset: its input price)"),
    "prices.*.cache_write": Key(price, None, "US dollars per million prompt tokens of model * written to a cache "
                                              "(unset: its input price)"),
    "endpoints.*.base_url": Key(http_url, None, "an OpenAI- or Anthropic-compatible server, e.g. https://api.groq.com/openai/v1"),
    "endpoints.*.api": Key(api_kind, "openai", "the API it speaks: openai or anthropic"),
    "endpoints.*.key_env": Key(env_name, None, "the environment variable that holds its key"),
    "endpoints.*.key_cmd": Key(one_line, None, "a command that prints its key (e.g. pass show groq), "
                               "run only when it is used"),
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
            raise UsageError(f"bad {section[:-1]} name {name!r}{where}: "
                             f"{exc.args[0].replace('an agent', 'a')}") from None
        if section == "endpoints" and name in RESERVED:
            raise UsageError(f"{name!r} is a provider of conv's own{where}", "Give the endpoint another name")
    return PATTERNS[pattern]


def unknown(key: str, where: str = "") -> UsageError:
    meant = closest(key)
    return UsageError(f"unknown config key {key!r}{where}",
                      f"Did you mean {meant}? (conv config get lists them all)" if meant
                      else "conv config get lists them all")


def closest(key: str) -> str | None:
    """The declared key ``key`` most likely meant (a typo's), if one is close."""
    from difflib import get_close_matches  # only for a key that is wrong

    section, _, rest = key.partition(".")
    if section in SECTIONS and "." in rest:  # agents.coder.modle: the field is what may be wrong
        fields = [p.partition(".*.")[2] for p in PATTERNS if p.startswith(section + ".*.")]
        words = rest.split(".")  # a model's name may hold dots: prices.gpt-4.1.inptu
        for cut in range(len(words) - 1, 0, -1):
            found = get_close_matches(".".join(words[cut:]), fields, n=1, cutoff=0.6)
            if found:
                return f"{section}.{'.'.join(words[:cut])}.{found[0]}"
        return None
    found = get_close_matches(key, [*KEYS, *SECTIONS], n=1, cutoff=0.6)
    return found[0] if found else None


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
