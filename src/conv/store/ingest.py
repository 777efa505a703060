"""The one writer of conversations from outside (an import from another
tool, a project's side refs): in one commit, what the store lacks is added
and what it holds meets what came by the foreign rule of merge.py.

A conversation that was purged never comes back. One in the trash stays
there: the turns that continue it go to it in the trash (the user deleted
it; nothing is lost, and ``conv restore`` brings it back whole), said by
``in_trash``. A conversation sits in one place: never live and in the trash at once."""

from collections.abc import Callable

from ..errors import StoreError
from ..format.model import Turn
from ..home import progress
from ..records import dataclass, field
from .incoming import Incoming
from .layout import ROOT, TRASH, decode, purged_ids
from .merge import Side, joined, side, write
from .repo.git import GitStore
from .repo.objects import object_id
from .repo.snapshot import Hashed, Snapshot


@dataclass
class Ingested:
    old: str | None = None
    new: str | None = None  # None: nothing was new
    added: list = field(default_factory=list)  # conversations new to the store, written as they came
    turns: int = 0  # turns added (to new and held conversations, and to forks)
    updated: int = 0  # turns a tool completed since they were brought in
    forks: list = field(default_factory=list)  # forks made or grown with lines that did not continue the user's
    in_trash: list = field(default_factory=list)  # conversations in the trash that got turns


def ingest(git: GitStore, incoming: list[Incoming], message: Callable[[Ingested], str], trusted: bool) -> Ingested:
    """Bring ``incoming`` in, in one commit. ``trusted``: a tool's own sessions
    (the source is the authority over the turns it made), else a teammate's."""
    named = [{n: object_id(b"blob", data) if isinstance(data, bytes) else data for n, data in item.files.items()}
             for item in incoming]  # each file's blob id, once
    contents = {sha: item.files[n] for item, shas in zip(incoming, named) for n, sha in shas.items()
                if isinstance(item.files[n], bytes)}
    out = Ingested()

    def build(snap: Snapshot):
        changes: dict = {}
        out.added, out.forks, out.in_trash, out.turns, out.updated = [], [], [], 0, 0
        purged = purged_ids(snap)
        touched: dict[str, Side | None] = {}  # conversations written in this commit, as they are now

        def held(conv_id: str) -> Side | None:
            return touched[conv_id] if conv_id in touched else side(snap, conv_id)

        def read(sha: str) -> bytes:
            return contents[sha] if sha in contents else snap.blob(sha)

        def edited(conv_id: str, name: str) -> bool:
            """Whether the user changed the turn they hold (conv edit): then no tool's version replaces it."""
            where = held(conv_id)
            sha = where.files.get(f"{name}.md") if where else None
            if sha is None or sha in contents:
                return False
            try:
                return Turn.from_text(name, decode(read(sha), name)).edited is not None
            except StoreError:  # a turn conv cannot read is the user's own doing: left as it is
                return True

        with progress.steps("writing conversations", len(incoming)) as advance:
            for item, shas in zip(incoming, named):
                advance()
                if item.conv_id in purged:
                    continue
                theirs = Side(ROOT, dict(shas))
                base = Side(ROOT, item.base) if item.base is not None else None
                mine = held(item.conv_id)
                result = joined(item.conv_id, base, mine, theirs, trusted, edited, held, read)
                _place(changes, touched, item.conv_id, mine, result.side, out)
                for fork in result.forks:
                    _place(changes, touched, fork.conv_id, held(fork.conv_id), fork.side, out, fork=True)
                out.turns += result.turns_added
                out.updated += result.turns_updated
        for path, value in list(changes.items()):
            if value is not None and not isinstance(value, bytes) and value.sha in contents:
                changes[path] = Hashed(value.sha, contents[value.sha])  # a blob the store does not hold yet
        return (changes, message(out)) if changes else None

    written = git.update(build)
    if written is not None:
        out.old, out.new = written
    return out


def _place(changes: dict, touched: dict, conv_id: str, mine: Side | None, result: Side | None, out: Ingested,
           fork: bool = False) -> None:
    if result is None:
        return
    if mine is None and not fork:
        out.added.append(conv_id)
    elif fork:
        out.forks.append(conv_id)
    if result.root == TRASH and mine is not None and result.files != mine.files:
        out.in_trash.append(conv_id)
    write(changes, conv_id, mine, result)
    touched[conv_id] = Side(result.root, {n: (object_id(b"blob", s) if isinstance(s, bytes) else s)
                                          for n, s in result.files.items()})
