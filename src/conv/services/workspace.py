"""The store, its index and the config, opened once per command."""

from dataclasses import dataclass, field

from ..config import Config
from ..format import Conversation
from ..index import Index
from ..store import Store


@dataclass
class Workspace:
    store: Store = field(default_factory=Store)
    config: Config = field(default_factory=Config)
    index: Index = field(init=False)

    def __post_init__(self):
        self.index = Index(self.store)

    def conversation(self, conv_id: str, commit: str | None = None) -> Conversation:
        """A conversation to read (files parsed once, then cached by blob id)."""
        return self.store.read(conv_id, commit, cache=self.index)
