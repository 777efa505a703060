"""Reading the store for people: listings, search and single conversations."""

from datetime import datetime, timedelta, timezone

from ..errors import UsageError
from ..format.model import STATUSES, Conversation, iso
from ..home import project
from ..home.secrets import outward
from ..home.values import duration
from ..index import Filters, Row
from ..index.queries import OWN
from ..records import dataclass
from .current import current
from .workspace import Workspace

WORDS_MOST = 64  # words of a search
COUNTED_MOST = 1_000  # conversations counted that match a search's words, when its filters leave none


@dataclass
class Listed:
    row: Row
    short: str
    current: bool
    depth: int = 0  # with --tree: how many forks down

    @property
    def title(self) -> str:
        """Its title as a listing shows it: what looks like a key masked, as a search's snippet is."""
        return outward(self.row.title)

    def to_dict(self) -> dict:
        r = self.row
        return {
            "id": r.id, "short": self.short, "title": self.title, "created": r.created, "updated": r.updated,
            "model": r.model, "provider": r.provider, "agent": r.agent, "tags": r.tags, "status": r.status,
            "turns": r.turns, "current": self.current, "broken": r.broken, "forked_from": r.forked_from,
            "summary": outward(r.summary or "") or r.summary, "deleted": r.trashed, "tokens": r.tokens,
            "cost": r.cost, "wrong": r.wrong, "source": r.source,
        }


FIRST, LAST = "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"  # the calendar's ends, as conv writes times


def since(text: str | None, said: str = "--since") -> str | None:
    """``--since`` (``said``: as the user gave it, for the error): an age (``7d``, ``12h``) or a date
    (``2026-11-01``, ``20261101``, a year ``2026``) as an ISO time. A bare number is no age: it reads as
    seconds elsewhere, and here as a year or a date someone meant."""
    if text is None:
        return None
    wrong = UsageError(f"{said} {text[:100]!r}{'…' if len(text) > 100 else ''} is neither an age nor a date",
                       f"e.g. {said} 7d or {said} 2026-11-01")
    digits = text.strip().isdigit()
    try:
        age = None if digits else duration(text)
    except ValueError:
        age = None
    try:
        if age is not None:
            return iso(datetime.now(timezone.utc) - timedelta(seconds=age))
        if digits and len(text.strip()) not in (4, 8):
            raise ValueError(text)
        moment = datetime.fromisoformat(f"{text.strip()}-01-01" if digits and len(text.strip()) == 4 else text)
        return iso(moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc))
    except ValueError:
        raise wrong from None
    except OverflowError:  # past the calendar's ends once in UTC (0001-01-01T00:00+14:00): as far as it goes
        return FIRST if age is not None or moment.year < 5000 else LAST


def filters_from(agent: str | None = None, tag: str | None = None, since_text: str | None = None,
                 status: str | None = None, deleted: bool = False, here: bool = False,
                 source: str | None = None, model: str | None = None, flag: str = "--") -> Filters:
    """The filters ``conv list`` and ``conv search`` take, checked; ``here``: the
    conversations of the git work tree around the current folder; ``flag``: how
    an error names an option (``--since``; "": an MCP tool's argument)."""
    if status and status not in STATUSES:
        raise UsageError(f"unknown status {status!r}", "Use one of: " + ", ".join(STATUSES))
    top = project.root() if here else None
    if here and top is None:
        raise UsageError("--here: the current folder is in no git work tree", "cd into a project, or leave out --here")
    return Filters(agent=agent, tag=tag, since=since(since_text, f"{flag}since"), status=status, trashed=deleted,
                   here=top, source=_source(source, flag), model=model)


def _source(name: str | None, flag: str = "--") -> str | None:
    """``--source``: a tool conv imports (its conversations, captured or imported), or conv (its own)."""
    if name is None:
        return None
    from .. import sources

    return sources.named(name, "reader", flag + "source {name!r}: conv imports from no such tool").name


def listing(ws: Workspace, limit: int | None, filters: Filters | None = None, tree: bool = False,
            after: tuple[str, str] | None = None) -> list[Listed]:
    """The newest conversations first (``after``: those after the row (updated, id) a page ended with)."""
    rows = ws.index.refresh().recent(limit, filters, after)
    now = current(ws).conv_id if rows else None
    listed = [Listed(r, ws.index.queries.short_id(r.id), r.id == now) for r in rows]
    return _as_tree(listed) if tree else listed


def total(ws: Workspace, filters: Filters | None = None) -> int:
    """How many conversations the filters match (a listing shows the latest of them)."""
    return ws.index.queries.counted(filters)


def _as_tree(listed: list[Listed]) -> list[Listed]:
    """Forks right under their parents (when both are listed), newest first;
    every conversation once, however its forks name each other (a loop of
    forks, which only a hand edit or a foreign file makes, starts at its newest)."""
    children: dict[str, list[Listed]] = {}
    present = {item.row.id for item in listed}
    for item in listed:
        parent = item.row.forked_from
        if parent in present and parent != item.row.id:
            children.setdefault(parent, []).append(item)
    out: list[Listed] = []
    placed: set[str] = set()

    def visit(item: Listed, depth: int) -> None:
        stack = [(item, depth)]
        while stack:
            item, depth = stack.pop()
            if item.row.id in placed:
                continue
            placed.add(item.row.id)
            item.depth = depth
            out.append(item)
            stack += [(child, depth + 1) for child in reversed(children.get(item.row.id, []))]

    for item in listed:
        if item.row.forked_from not in present or item.row.forked_from == item.row.id:
            visit(item, 0)
    for item in listed:  # in a loop of forks: none was a root
        visit(item, 0)
    return out


@dataclass
class Searched:
    """What a search found: the hits (each with its conversation's short id), and
    when filters left none, how many conversations match without them."""

    text: str
    hits: list  # (Hit, short id)
    unfiltered: int = 0  # conversations that match the words alone, when the filters left none
    filtered_by: str = ""  # the filters, as typed (--model sonnet)

    def to_list(self) -> list[dict]:
        return [{"id": h.row.id, "short": short, "title": outward(h.row.title), "source": h.row.source or OWN,
                 "project": h.row.project, "model": h.row.model, "date": h.row.updated, "turn": h.turn,
                 "turn_number": h.number, "role": h.role, "snippet": "".join(t for t, _ in h.spans())}
                for h, short in self.hits]


def search(ws: Workspace, text: str, limit: int, filters: Filters | None = None, said: str = "") -> Searched:
    """Hits with each conversation's short id (a search of more than WORDS_MOST words is refused: each
    word is matched against every turn, and a pasted page would take minutes); ``said``: the filters as
    the user gave them, to say when they leave nothing."""
    from ..index.search import Query

    if len(text.split()) > WORDS_MOST:
        raise UsageError(f"the search has {len(text.split()):,} words; conv searches with at most {WORDS_MOST}",
                         "Search for the few words that matter")
    if not Query(text):
        raise UsageError("nothing to search for" + (f" in {text!r}" if text.strip() else ""),
                         'Give words, a "quoted phrase" or a prefix*: conv search "retry policy"')
    index = ws.index.refresh()
    hits = index.search(text, limit, filters)
    found = Searched(text, [(hit, ws.index.queries.short_id(hit.row.id)) for hit in hits], filtered_by=said)
    if not hits and filters is not None and said:
        found.unfiltered = len(index.search(text, COUNTED_MOST, Filters(trashed=filters.trashed)))
    return found


def latest(ws: Workspace, ref: str | None) -> str:
    """``conv show -l``: the id of the conversation updated last."""
    if ref:
        raise UsageError("give a conversation or -l, not both", "e.g. conv show k3f9x2, or conv show -l")
    rows = ws.index.refresh().recent(1)
    if not rows:
        raise UsageError("there are no conversations yet", 'Start one: conv ask "…"')
    return rows[0].id


def conversation(ws: Workspace, ref: str | None, turn: int | None = None) -> Conversation:
    """A conversation (``turn``: it must have that many turns, to be shown from there)."""
    conv = ws.conversation(ws.resolve(ref))
    if turn is not None and turn > len(conv.turns):
        raise UsageError(f"{conv.id} has {len(conv.turns)} turns, not {turn}",
                         f"conv show {ws.index.queries.short_id(conv.id)} shows them all")
    return conv


def raw_files(ws: Workspace, ref: str | None, turn: int | None = None,
              last: int | None = None) -> list[tuple[str, str]]:
    """(path, text) of each Markdown file of a conversation, conversation.md first, then its turns (from
    ``turn`` on, the ``last`` of them, as conv show keeps them)."""
    meta, *turns = [(path, data.decode("utf-8", "replace")) for path, data in ws.store.raw_files(ws.resolve(ref))]
    if turn is not None and turn > len(turns):
        raise UsageError(f"it has {len(turns)} turns: --turn {turn} is past them", "Give a turn from 1")
    turns = turns[(turn or 1) - 1:]
    return [meta, *(turns[-last:] if last else turns)]


def completions(ws: Workspace, typed: str, most: int) -> list[tuple[str, str]]:
    """(short id, title) of the newest conversations whose id starts with ``typed``."""
    queries = ws.index.refresh()
    return [(queries.short_id(row.id), row.title) for row in queries.starting(typed.lower(), most)]
