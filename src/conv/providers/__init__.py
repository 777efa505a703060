"""Model providers: one small interface, one module a provider.

A provider takes the message list and a model name and streams the answer,
calling ``on_text`` for each piece as it arrives; what it has already passed
on is the caller's to keep if the call then fails. It raises ``ProviderError``
(one line, with a hint) for everything the user can fix. Which provider and
model answer is decided in ``choice.py``.
"""

from importlib import import_module
from typing import Callable, Protocol

from ..errors import UsageError
from ..home.config import Config
from ..records import dataclass, field


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

    @classmethod
    def from_config(cls, config: Config) -> "Provider":
        """The provider as the settings (and the environment) describe it."""

    def complete(
        self, messages: list[Message], model: str, on_text: OnText, stream: bool = True,
        temperature: float | None = None, seed: int | None = None,
    ) -> Reply:
        """``seed``: a retry's, so that it samples anew (where the provider takes one)."""


# name -> (module, class); imported only when that provider answers
PROVIDERS: dict[str, tuple[str, str]] = {
    "openai": ("openai", "OpenAIProvider"),
    "ollama": ("openai", "OllamaProvider"),
    "anthropic": ("anthropic", "AnthropicProvider"),
    "local": ("local", "LocalProvider"),
    "cmd": ("command", "CommandProvider"),
}


def get_provider(name: str, config: Config) -> Provider:
    if name in config.names("endpoints"):  # a named endpoint of config (endpoints.py)
        return import_module(".endpoints", __name__).provider(config, name)
    if name not in PROVIDERS:
        raise UsageError(f"unknown provider {name!r}", "Known: " + ", ".join([*PROVIDERS, *config.names("endpoints")]))
    module, cls = PROVIDERS[name]
    return getattr(import_module(f".{module}", __name__), cls).from_config(config)
