"""``conv share``: one conversation made ready to show someone else. Every
secret conv knows of is masked (home/secrets.py), and what only looks like
one (an API key's shape, a private key: the pre-commit hook's patterns) is
masked too and named, so the user can check before sending the page. The
page itself is terminal/html.py's."""

from ..format.model import Conversation
from ..home.secrets import MASK, look_alikes, redact
from ..records import dataclass, field, replace
from .ask.attachments import Speaker
from .workspace import Workspace


@dataclass
class Shared:
    conv: Conversation  # its turns' text masked, their files as the lines a model is sent
    forks: list[tuple[str, str]] = field(default_factory=list)  # (short id, title) of the conversations forked from it
    parent: str | None = None  # the short id of the one it was forked from
    masked: list[str] = field(default_factory=list)  # what looked like a secret, and where: said to the user


def share(ws: Workspace, ref: str | None) -> Shared:
    conv = ws.conversation(ws.resolve(ref))
    speaker, masked = Speaker(ws.store, conv.id, False, unsent=""), []

    def mask(text: str, where: str) -> str:
        text = redact(text)
        for what, found in look_alikes(text):
            masked.append(f"{where} held what looks like {what} ({found[:6]}…)")
            text = text.replace(found, MASK)
        return text

    turns = [replace(turn, content=mask(speaker(turn).content, f"turn {n}")) for n, turn in enumerate(conv.turns, 1)]
    forks = [(ws.index.queries.short_id(r.id), mask(r.title, f"fork {r.id}'s title"))
             for r in ws.index.refresh().recent(None) if r.forked_from == conv.id]
    parent = (conv.forked_from or {}).get("conversation")
    return Shared(replace(conv, turns=turns, title=mask(conv.title, "the title")), forks,
                  ws.index.queries.short_id(parent) if parent else None, masked)
