"""The store, its index and the config, opened once per command."""

from dataclasses import dataclass, field

from ..errors import RefError
from ..format.model import Conversation
from ..home import session
from ..home.config import Config
from ..index import Index
from ..store import Store


@dataclass
class Workspace:
    store: Store = field(default_factory=Store)
    config: Config = field(default_factory=Config)
    index: Index = field(init=False)

    def __post_init__(self):
        self.index = Index(self.store)
        self.store.hook_timeout = self.config.get("hooks.timeout")

    def conversation(self, conv_id: str, commit: str | None = None) -> Conversation:
        """A conversation to read (files parsed once, then cached by blob id)."""
        return self.store.read(conv_id, commit, cache=self.index)

    def resolve(self, ref: str | None) -> str:
        """The conversation ``ref`` names, or with no ref this terminal's current one."""
        from . import refs
        from .current import current

        if ref is not None:
            return refs.resolve(self.index, ref)
        conv_id = current(self).conv_id
        if conv_id is None:
            raise RefError("no current conversation", 'Name one (see conv list) or ask: conv ask "…"')
        return conv_id

    def make_current(self, conv_id: str, turns: int) -> None:
        """This terminal's conversation from now on (when it has a session)."""
        name = session.session_name()
        if name:
            session.save(name, conv_id, self.index.short_id(conv_id), turns, self.config.get("session.expiry"))
