"""Two lines of one conversation meeting, so that no turn is lost and no two
lines are interleaved: the one merge, with two rules.

**Sync** (``merged``; pull.py runs it over whole trees), the user's own
machines, against their common base:
- turn files are unique names, so turns added on either side are all kept;
  a turn changed on one side takes that change; changed on both, the later
  side's version wins (the other stays in history);
- conversation.md merges field by field, the later side winning a field both
  changed;
- when both sides extended the conversation, the line whose first new turn
  is older keeps it, the other moves to a fork of it (same blobs,
  ``forked_from`` set), which either machine can continue.
Every choice depends only on the three versions, never on which machine
merges, so two machines merging the same heads write identical trees.

**Foreign** (``joined``; ingest.py runs it for imports, project_refs.py for a
project's side refs): another's line (a teammate's, a tool's session) meets
the user's, against what was last brought in of it. The user's line always
stays. Theirs joins it only where it continues it: its new turns come after
the user's last, it holds the user's newest turns as they are, it changes no
turn the user holds and, from a teammate, brings no system turn. Anything
else comes in as a fork of the conversation (named by the first turn that
differs, so bringing it in again goes on in the same fork). A tool's session
is the authority over the turns it made (``trusted``): a turn of it that
changed (an answer that was under way) replaces the one held, unless the
user edited it; the user's own follow-ups are theirs, and the session going
on past them goes to a fork. Nothing changes conversation.md of a
conversation the user holds.
"""

import hashlib
import re
from collections.abc import Callable

from ..format import ids
from ..format.model import Conversation
from ..records import dataclass, field
from .layout import META_FILE as META
from .layout import ROOT, TRASH
from .layout import shard_path as _shard
from .repo.snapshot import Existing, Snapshot

ROOTS = (ROOT, TRASH)
_TURN_OF = re.compile(rf"^({ids.TURN_NAME})(?:\.md$|\.)")


@dataclass
class Side:
    """One conversation as one version has it: where, and its files (name -> blob id, conversation.md included)."""

    root: str
    files: dict[str, str]

    @property
    def others(self) -> dict[str, str]:
        """Its files but conversation.md (as sync names turns: by file name)."""
        return {n: s for n, s in self.files.items() if n != META}

    @property
    def turns(self) -> dict[str, str]:
        """Its turn files (name -> blob id), without the files sent with them."""
        return {n[:-3]: s for n, s in self.files.items() if n != META and n.endswith(".md")}

    def of(self, names) -> dict[str, str]:
        """Its files that belong to the turns ``names`` (each turn's file and the files sent with it)."""
        wanted = set(names)
        return {n: s for n, s in self.files.items() if turn_of(n) in wanted}


@dataclass
class Fork:
    conv_id: str
    side: Side  # its conversation.md among its files: new text, or (an existing fork's) blob id
    holds_local: bool = False  # it holds the user's own line (a sync moved it there)


@dataclass
class Result:
    """A conversation after two lines met: its new version (None: as it was) and any forks made or grown."""

    side: Side | None
    forks: list[Fork] = field(default_factory=list)
    turns_added: int = 0
    turns_updated: int = 0


def turn_of(name: str) -> str | None:
    """The turn a file of a conversation's folder belongs to (None: conversation.md)."""
    found = _TURN_OF.match(name)
    return found[1] if found else None


def side(snap: Snapshot, conv_id: str) -> Side | None:
    for root in ROOTS:
        files = snap.files(f"{root}/{_shard(conv_id)}")
        if files:
            return Side(root, files)
    return None


# -- sync: the user's own lines --------------------------------------------------------


def merged(conv_id: str, b: Side | None, l: Side | None, r: Side | None, later_is_local, read: Callable,
           base_commit: str | None) -> tuple[Side | None, Fork | None]:
    """Sync's rule for one conversation: (its merged version, a fork holding
    the line that moved). ``later_is_local(name)``: whether this machine's
    version of a file is the later edit; ``read(sha)``: a blob."""
    if l is None or r is None:
        present = l or r
        if present is None or (b is not None and _same(present, b)):
            return None, None  # gone on one side (purged), untouched on the other
        return present, None
    if _same(l, r):
        return l, None
    if b is not None and _same(l, b):
        return r, None
    if b is not None and _same(r, b):
        return l, None
    base_files = b.others if b else {}
    new_l, new_r = sorted(set(l.others) - set(base_files)), sorted(set(r.others) - set(base_files))
    meta, conv = _merge_meta(b, l, r, later_is_local, read)
    root = _root(b, l, r, new_l or new_r)
    if new_l and new_r:  # both lines grew: the older line stays, the other becomes a fork
        stays_local = new_l[0] < new_r[0]
        stay, move = (l, r) if stays_local else (r, l)
        moved_first = (new_r if stays_local else new_l)[0]
        fork_id = fork_name(conv_id, moved_first)
        shared = sorted(base_files)
        fork_meta = fork_text(conv, conv_id, fork_id, moved_first, shared[-1][:-3] if shared else "",
                              base_commit or "")
        kept = Side(root, {**stay.others, META: meta})
        return kept, Fork(fork_id, Side(root, {**move.others, META: fork_meta}), holds_local=not stays_local)
    files = {}
    for name in sorted(set(l.others) | set(r.others)):
        pick = _pick(base_files.get(name), l.files.get(name), r.files.get(name), lambda name=name: later_is_local(name))
        if pick:
            files[name] = pick
    return Side(root, {**files, META: meta}), None


def _pick(base: str | None, mine: str | None, theirs: str | None, mine_is_later: Callable[[], bool]) -> str | None:
    """One file's merged blob (None: it goes)."""
    if mine == theirs:
        return mine
    if mine is None or theirs is None:
        present = mine or theirs
        return None if present == base else present  # deleted on one side, kept if changed on the other
    if mine == base:
        return theirs
    if theirs == base:
        return mine
    return mine if mine_is_later() else theirs


def _root(b, l, r, grew) -> str:
    """Where the merged conversation lives: where a side moved it, but never
    in the trash when turns were added."""
    moved = [s.root for s in (l, r) if b is None or s.root != b.root]
    root = moved[0] if moved else l.root
    return ROOT if root == TRASH and grew else root


def _merge_meta(b, l, r, later_is_local, read) -> tuple[str | bytes, Conversation]:
    """conversation.md: its blob id when one version wins whole, else the
    merged text; and the merged metadata itself (for a fork's copy)."""
    lm, rm, bm = l.files.get(META), r.files.get(META), (b.files.get(META) if b else None)
    lc, rc = Conversation.from_text(read(lm).decode()), Conversation.from_text(read(rm).decode())
    if lm == rm or rm == bm:
        return lm, lc
    if lm == bm:
        return rm, rc
    bc = Conversation.from_text(read(bm).decode()) if bm else None
    later, earlier = (lc, rc) if later_is_local(META) else (rc, lc)
    for key in Conversation.FIELDS:
        if bc is not None and getattr(later, key) == getattr(bc, key) != getattr(earlier, key):
            setattr(later, key, getattr(earlier, key))  # only the earlier side changed this field
    return later.to_text().encode(), later


# -- foreign: another's line meets the user's ------------------------------------------


def joined(conv_id: str, base: Side | None, mine: Side | None, theirs: Side, trusted: bool,
           edited: Callable[[str, str], bool], local: Callable[[str], Side | None],
           read: Callable[[str], bytes]) -> Result:
    """The foreign rule for one conversation (see the module's docstring).
    ``edited(conv_id, turn)``: whether the user changed a turn they hold (conv edit);
    ``local(conv_id)``: a conversation as the user holds it (a fork made
    before); ``read(sha)``: conversation.md's text, for a fork's."""
    if mine is None:
        return Result(Side(theirs.root, dict(theirs.files)), turns_added=len(theirs.turns))
    held, came = mine.turns, theirs.turns
    since = base.turns if base is not None else {}
    new = {n: s for n, s in came.items() if since.get(n) != s and held.get(n) != s}
    if not new:
        return Result(None)
    changed = [n for n in new if n in held]
    added = sorted(n for n in new if n not in held)
    update = [n for n in changed if not edited(conv_id, n)] if trusted else []
    if trusted:
        continues = not added or not any(n not in came for n in held)  # the user added nothing of their own
    else:
        mine_since = [n for n, s in held.items() if since.get(n) != s]
        continues = (not changed and all(came.get(n) == held[n] for n in mine_since)
                     and (not held or added[0] > max(held)) and not any(n.endswith("-system") for n in added))
    files = dict(mine.files)
    files.update(theirs.of(update))
    if continues:
        files.update(theirs.of(added))
        return Result(Side(mine.root, files), turns_added=len(added), turns_updated=len(update))
    out = Result(Side(mine.root, files) if update else None, turns_updated=len(update))
    shared = [n for n in sorted(came) if held.get(n) == came[n]]
    first = next(n for n in sorted(came) if n not in shared)
    fork_id = fork_name(conv_id, first)
    line = Side(mine.root, {**theirs.of(came), META: theirs.files.get(META, "")})
    grown = joined(fork_id, base, local(fork_id), line, trusted, edited, local, read)
    if grown.side is not None:
        if local(fork_id) is None:  # made now: its own conversation.md
            conv = Conversation.from_text(read(theirs.files[META]).decode())
            grown.side.files[META] = fork_text(conv, conv_id, fork_id, first, shared[-1] if shared else "", "")
        out.forks.append(Fork(fork_id, grown.side))
    out.forks += grown.forks  # a fork of the fork, made though the fork itself is as it was
    out.turns_added += grown.turns_added
    return out


# -- what both rules share -------------------------------------------------------------


def fork_name(conv_id: str, first_moved: str) -> str:
    """The id of the fork a line starting at turn ``first_moved`` moves to: the
    same on every machine and at every meeting."""
    prefix = conv_id[: len(conv_id) - len(ids.token_of(conv_id))]
    return prefix + ids.token_of_bytes(hashlib.sha256(f"{conv_id}:{first_moved}".encode()).digest())


def fork_text(conv: Conversation, conv_id: str, fork_id: str, first_moved: str, last_shared: str,
              base_commit: str) -> bytes:
    """conversation.md of a fork holding a line that moved from ``conv_id``."""
    fork = Conversation.from_text(conv.to_text())  # a copy, without the original's YAML object
    fork.meta = None
    fork.id = fork_id
    fork.title = f"{conv.title or conv_id} (diverged)"
    fork.created = ids.turn_time(first_moved)
    fork.forked_from = {"conversation": conv_id, "turn": last_shared, "commit": base_commit}
    return fork.to_text().encode()


def _same(a: Side, b: Side) -> bool:
    return a.root == b.root and a.files == b.files


def write(changes: dict, conv_id: str, local: Side | None, result: Side | None) -> None:
    """Record, against the local tree, what turns ``local`` into ``result`` (a
    file's value: a blob id, or the text of a new one)."""
    if local is not None and (result is None or result.root != local.root):
        changes[f"{local.root}/{_shard(conv_id)}"] = None
        local = None
    if result is None:
        return
    where = f"{result.root}/{_shard(conv_id)}"
    have = local.files if local is not None else {}
    for name, value in result.files.items():
        if isinstance(value, bytes):
            changes[f"{where}/{name}"] = value
        elif have.get(name) != value:
            changes[f"{where}/{name}"] = Existing(value)
    for name in set(have) - set(result.files):
        changes[f"{where}/{name}"] = None
