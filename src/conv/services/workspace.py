"""The store, its index and the config, opened once per command."""

from dataclasses import dataclass, field

from ..config import Config
from ..index import Index
from ..store import Store


@dataclass
class Workspace:
    store: Store = field(default_factory=Store)
    config: Config = field(default_factory=Config)
    index: Index = field(init=False)

    def __post_init__(self):
        self.index = Index(self.store)
