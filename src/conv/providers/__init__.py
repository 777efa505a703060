"""Model providers: one small interface, one module a provider.

A provider takes the message list and a model name and streams the answer,
calling ``on_text`` for each piece as it arrives; what it has already passed
on is the caller's to keep if the call then fails. It raises ``ProviderError``
(one line, with a hint) for everything the user can fix.
"""

import os
from dataclasses import dataclass, field
from typing import Callable, Protocol

from ..config import Config
from ..errors import UsageError


@dataclass
class Message:
    role: str  # system, user or assistant
    content: str


@dataclass
class Reply:
    model: str
    finish: str = "stop"  # stop or length (the provider's finish reason)
    usage: dict = field(default_factory=dict)  # prompt_tokens, completion_tokens


OnText = Callable[[str], None]


class Provider(Protocol):
    name: str

    def complete(self, messages: list[Message], model: str, on_text: OnText, stream: bool = True) -> Reply: ...


DEFAULT_PROVIDER = "openai"
DEFAULT_MODEL = "gpt-4o-mini"
PROVIDERS = ("openai",)


def resolve_model(flag: str | None, config: Config) -> tuple[str, str]:
    """(provider, model) from ``-m``, then ``CONV_MODEL``, then config, then the default.

    A spec is ``MODEL`` or ``PROVIDER:MODEL``; a prefix that is not a provider
    name stays part of the model (``llama3:8b`` is an Ollama model).
    """
    spec = flag or os.environ.get("CONV_MODEL") or config.get("model") or DEFAULT_MODEL
    prefix, sep, rest = spec.partition(":")
    if sep and prefix in PROVIDERS:
        if not rest:
            raise UsageError(f"model {spec!r} names no model", f"Write it as {prefix}:MODEL")
        return prefix, rest
    return DEFAULT_PROVIDER, spec


def get_provider(name: str, config: Config) -> Provider:
    if name == "openai":
        from .openai import OpenAIProvider

        return OpenAIProvider.from_config(config)
    raise UsageError(f"unknown provider {name!r}", "Known: " + ", ".join(PROVIDERS))
