"""Model providers: one small interface, one module a provider.

A provider takes the message list and a model name and streams the answer,
calling ``on_text`` for each piece as it arrives; what it has already passed
on is the caller's to keep if the call then fails. It raises ``ProviderError``
(one line, with a hint) for everything the user can fix. Which provider and
model answer is decided in ``choice.py``.
"""

from collections.abc import Callable
from importlib import import_module

from ..errors import UsageError
from ..home.config import Config
from ..records import dataclass, field

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of every follow-up): PEP 781's idiom
if TYPE_CHECKING:
    from typing import Protocol
else:
    Protocol = object  # the interface below is for readers and type checkers; providers need not inherit it


@dataclass
class Message:
    role: str  # system, user or assistant
    content: str
    images: tuple = ()  # (media type, bytes) of each image sent with it, to providers whose IMAGES is true


@dataclass
class Reply:
    model: str
    finish: str = "stop"  # stop or length (the provider's finish reason)
    usage: dict = field(default_factory=dict)  # prompt_tokens, completion_tokens


OnText = Callable[[str], None]


class Provider(Protocol):
    name: str
    OPTIONS: tuple  # the model options (options.py) it takes
    IMAGES: bool  # whether it is sent images (Message.images)

    @classmethod
    def from_config(cls, config: Config) -> "Provider":
        """The provider as the settings (and the environment) describe it."""

    def complete(
        self, messages: list[Message], model: str, on_text: OnText, stream: bool = True, options: dict | None = None,
    ) -> Reply:
        """``options``: model options (options.py), only those in the provider's
        ``OPTIONS``, already checked; a retry's ``seed`` makes it sample anew."""


def get_provider(name: str, config: Config) -> Provider:
    if name in config.names("endpoints"):  # a named endpoint of config (endpoints.py)
        return import_module(".endpoints", __name__).provider(config, name)
    from .registry import BY_NAME

    if name not in BY_NAME:
        raise UsageError(f"unknown provider {name!r}", "Known: " + ", ".join([*BY_NAME, *config.names("endpoints")]))
    record = BY_NAME[name]  # its module is imported only when it answers
    return getattr(import_module(f".{record.module}", __name__), record.cls).from_config(config)
