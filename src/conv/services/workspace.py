"""The store, its index and the config, as one command sees them. Each is
opened when first used, so ``conv push`` opens neither the index nor the
config."""

from functools import cached_property

from ..errors import RefError
from ..store import Store

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of conv push): PEP 781's idiom

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..format.model import Conversation
    from ..home.config import Config
    from ..index import Index


class Workspace:
    """What every service takes first: ``ws.store``, ``ws.index``, ``ws.config``.
    ``notice`` (the caller's: the CLI prints, a test may collect) hears what the
    services, the store and the index have to say on the side (an answer kept
    by a failed write going in, an index that cannot be used)."""

    def __init__(self, notice: "Callable[[str], None]", store: Store | None = None, config: "Config | None" = None):
        self.notice = notice
        self.store = store or Store(hook_timeout=lambda: self.config.get("hooks.timeout"), notice=self.notice)
        if config is not None:
            self.config = config

    @cached_property
    def config(self) -> "Config":
        from ..home.config import Config

        return Config(notice=self.notice)

    @cached_property
    def index(self) -> "Index":
        from ..index import Index

        return Index(self.store, notice=self.notice)

    def conversation(self, conv_id: str, commit: str | None = None) -> "Conversation":
        """A conversation to read, its turns with their text."""
        return self.store.read(conv_id, commit)

    def in_trash(self, conv_id: str) -> bool | None:
        """Whether the store holds the conversation in the trash (True), live (False), or not at all (None)."""
        return next((trashed for trashed in (False, True) if self.store.has(conv_id, trashed=trashed)), None)

    def resolve(self, ref: str | None) -> str:
        """The conversation ``ref`` names, or with no ref this terminal's current one."""
        from . import refs
        from .current import current

        if ref is not None:
            return refs.resolve(self, ref)
        conv_id = current(self).conv_id
        if conv_id is None:
            raise RefError("no current conversation", 'Name one (see conv list) or ask: conv ask "…"')
        return conv_id

    def make_current(self, conv_id: str, turns: int) -> None:
        """This terminal's conversation from now on (without the shell plugin,
        that of every terminal without it)."""
        from ..home import session  # not loaded by conv push

        name = session.session_name() or session.DEFAULT
        session.save(name, conv_id, self.index.queries.short_id(conv_id), turns, self.config.get("session.expiry"))
