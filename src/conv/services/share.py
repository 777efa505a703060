"""``conv share``: one conversation made ready to show someone else. Every
secret conv knows of is masked (home/secrets.py), and what only looks like
one (an API key's shape, a private key: the pre-commit hook's patterns) is
masked too and named, so the user can check before sending the page; so is
what would give the user away (home/redaction.py: their home, login, host,
e-mails, addresses). What is masked is what the page shows: terminal/html.py
asks ``find`` for every piece of text as it will be shown, the turns'
Markdown once it is parsed."""

from ..format.model import Conversation
from ..home.redaction import Redactor
from ..home.secrets import masked
from ..records import dataclass, field, replace
from .ask.attachments import Speaker
from .redacting import Redacting
from .workspace import Workspace


@dataclass
class Shared:
    conv: Conversation  # its turns' text with their files as the lines a model is sent
    redactor: Redactor  # what it masks, noted in its report
    forks: list[tuple[str, str]] = field(default_factory=list)  # (short id, title) of the conversations forked from it
    parent: str | None = None  # the short id of the one it was forked from

    @property
    def masked(self) -> list[str]:
        """What looked like a secret, and where: said to the user, and on the page."""
        return self.redactor.report.keys

    def finder(self, where: str):
        """Where a text shown as ``where`` holds what to mask (a key, or something of the user's)."""
        return lambda text: self.redactor.spans(text, where)

    def mask(self, text: str, where: str) -> str:
        """``text`` as shown as ``where``, masked."""
        return masked(text, self.finder(where)(text)) if text else text


def share(ws: Workspace, ref: str | None) -> Shared:
    conv = ws.conversation(ws.resolve(ref))
    speaker = Speaker(ws.store, conv.id, False, unsent="")
    turns = [replace(turn, content=speaker(turn).content) for turn in conv.turns]
    forks = [(ws.index.queries.short_id(r.id), r.title) for r in ws.index.refresh().recent(None)
             if r.forked_from == conv.id]
    parent = (conv.forked_from or {}).get("conversation")
    return Shared(replace(conv, turns=turns), Redacting(ws).of(conv), forks,
                  ws.index.queries.short_id(parent) if parent else None)
