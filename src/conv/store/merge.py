"""Merging two lines of a store's history so that no turn is lost.

Conversations merge one by one against their common base:
- turn files are unique names, so turns added on either side are all kept;
  a turn changed on one side takes that change; changed on both, the later
  side's version wins (the other stays in history);
- conversation.md merges field by field, the later side winning a field both
  changed;
- when both sides extended the same conversation, the two lines are not
  interleaved: the line whose first new turn is older keeps the conversation,
  the other moves to a fork of it (same blobs, ``forked_from`` set), which
  either machine can continue;
- the tombstones (purged.txt) are united, and no folder of an id either
  names is kept.
Every choice depends only on the three commits, never on which machine
merges, so two machines merging the same heads write identical trees.
"""

import hashlib
from collections.abc import Callable

from ..format import ids
from ..format.model import Conversation
from ..records import dataclass, field
from .layout import META_FILE as META
from .layout import PURGED, ROOT, TRASH, purged_ids, purged_text
from .layout import shard_path as _shard
from .repo.snapshot import Existing, Snapshot

ROOTS = (ROOT, TRASH)


@dataclass
class Side:
    """One conversation as one commit has it."""

    root: str
    files: dict[str, str]  # name -> blob id, conversation.md included

    @property
    def turns(self) -> dict[str, str]:
        return {n: s for n, s in self.files.items() if n != META}


@dataclass
class Merged:
    changes: dict = field(default_factory=dict)  # path -> Existing | bytes | None, against the local tree
    moved: dict[str, str] = field(default_factory=dict)  # conversation -> fork holding the local line
    forks: int = 0
    takes_remote: bool = True  # the result is the remote's tree: adopt its commit, make no merge


def merge(base: Snapshot | None, local: Snapshot, remote: Snapshot, changed: set[str],
          edited: Callable[[bool, str], tuple]) -> Merged:
    """The changes that turn the local tree into the merge of both. ``changed``
    holds the conversations either side touched since ``base``; ``edited(on_local,
    path)`` says when a side last changed a file, as a sortable (time, commit id):
    where both sides changed something, the later edit wins."""
    out = Merged()
    mine, theirs = purged_ids(local), purged_ids(remote)
    purged = mine | theirs
    if purged != mine:
        out.changes[PURGED] = purged_text(purged)
    out.takes_remote = purged == theirs
    for conv_id in sorted(purged):
        _write(out.changes, conv_id, _side(local, conv_id), None)
    for conv_id in sorted(changed - purged):
        b, l, r = (_side(s, conv_id) if s is not None else None for s in (base, local, remote))
        later_is_local = None if l is None or r is None else (
            lambda name, l=l, r=r: edited(True, f"{l.root}/{_shard(conv_id)}/{name}")
            > edited(False, f"{r.root}/{_shard(conv_id)}/{name}"))
        result, fork = _merge_one(conv_id, b, l, r, later_is_local, local, remote, base)
        out.takes_remote = out.takes_remote and fork is None and result is not None and r is not None \
            and result.root == r.root and result.files == r.files
        _write(out.changes, conv_id, l, result)
        if fork is not None:
            fork_id, fork_side, fork_meta, fork_is_local = fork
            for name, sha in fork_side.files.items():
                out.changes[f"{fork_side.root}/{_shard(fork_id)}/{name}"] = Existing(sha)
            out.changes[f"{fork_side.root}/{_shard(fork_id)}/{META}"] = fork_meta
            out.forks += 1
            if fork_is_local:
                out.moved[conv_id] = fork_id
    return out


def moved_away(local: Snapshot, remote: Snapshot, changed: set[str]) -> dict[str, str]:
    """After a fast-forward to ``remote``: the conversations whose line on this
    machine (``local``) another machine's merge moved into a fork, and those
    forks (the local line's turns are gone from the conversation, and the fork
    the merge made of them, named after the first of them, holds the last)."""
    out = {}
    for conv_id in changed:
        mine, now = _side(local, conv_id), _side(remote, conv_id)
        if mine is None or now is None or not mine.turns:
            continue
        gone = sorted(set(mine.turns) - set(now.turns))
        if not gone:
            continue
        fork_id = _fork_id(conv_id, gone[0])
        fork = _side(remote, fork_id)
        if fork is not None and max(mine.turns) in fork.turns:
            out[conv_id] = fork_id
    return out


def _merge_one(conv_id, b, l, r, later_is_local, local, remote, base):
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
    base_turns = b.turns if b else {}
    new_l = sorted(set(l.turns) - set(base_turns))
    new_r = sorted(set(r.turns) - set(base_turns))
    meta, merged_conv = _merge_meta(b, l, r, later_is_local, local, remote, base)
    root = _root(b, l, r, new_l or new_r)
    if new_l and new_r:  # both lines grew: the older line stays, the other becomes a fork
        stays_local = new_l[0] < new_r[0]
        stay, move = (l, r) if stays_local else (r, l)
        moved_first = (new_r if stays_local else new_l)[0]
        fork_id = _fork_id(conv_id, moved_first)
        kept = Side(root, {**stay.turns, META: ""})
        fork_meta = _fork_meta(conv_id, fork_id, merged_conv, base_turns, moved_first, base)
        fork = (fork_id, Side(root, move.turns), fork_meta, not stays_local)
        return _with_meta(kept, meta), fork
    turns = {}
    for name in sorted(set(l.turns) | set(r.turns)):
        pick = _pick(base_turns.get(name), l.turns.get(name), r.turns.get(name), lambda: later_is_local(name))
        if pick:
            turns[name] = pick
    return _with_meta(Side(root, {**turns, META: ""}), meta), None


def _pick(base: str | None, mine: str | None, theirs: str | None, mine_is_later: Callable[[], bool]) -> str | None:
    """One turn file's merged blob (None: it goes)."""
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


def _merge_meta(b, l, r, later_is_local, local, remote, base) -> tuple[str | bytes, Conversation]:
    """conversation.md: its blob id when one version wins whole, else the
    merged text; and the merged metadata itself (for a fork's copy)."""
    lm, rm, bm = l.files.get(META), r.files.get(META), (b.files.get(META) if b else None)
    lc, rc = _conversation(local, lm), _conversation(remote, rm)
    if lm == rm or rm == bm:
        return lm, lc
    if lm == bm:
        return rm, rc
    bc = _conversation(base, bm) if base is not None and bm else None
    later, earlier = (lc, rc) if later_is_local(META) else (rc, lc)
    for key in Conversation.FIELDS:
        if bc is not None and getattr(later, key) == getattr(bc, key) != getattr(earlier, key):
            setattr(later, key, getattr(earlier, key))  # only the earlier side changed this field
    return later.to_text().encode(), later


def _fork_meta(conv_id: str, fork_id: str, merged: Conversation, base_turns: dict, moved_first: str,
               base: Snapshot | None) -> bytes:
    fork = Conversation.from_text(merged.to_text())  # a copy, without the original's YAML object
    fork.meta = None
    fork.id = fork_id
    fork.title = f"{merged.title or conv_id} (diverged)"
    fork.created = ids.turn_time(moved_first)
    shared = sorted(base_turns)
    fork.forked_from = {"conversation": conv_id, "turn": shared[-1][:-3] if shared else "",
                        "commit": (base.commit if base is not None else None) or ""}
    return fork.to_text().encode()


def _with_meta(side: Side, meta) -> Side:
    side.files[META] = meta
    return side


def _conversation(snap: Snapshot, sha: str) -> Conversation:
    return Conversation.from_text(snap.blob(sha).decode())


def _fork_id(conv_id: str, first_moved: str) -> str:
    digest = int.from_bytes(hashlib.sha256(f"{conv_id}:{first_moved}".encode()).digest(), "big")
    token = "".join(ids.ALPHABET[(digest >> (5 * i)) & 31] for i in range(ids.TOKEN_LENGTH))
    prefix = conv_id[: len(conv_id) - len(ids.token_of(conv_id))]
    return prefix + token


def _same(a: Side, b: Side) -> bool:
    return a.root == b.root and a.files == b.files


def _side(snap: Snapshot, conv_id: str) -> Side | None:
    for root in ROOTS:
        files = snap.files(f"{root}/{_shard(conv_id)}")
        if files:
            return Side(root, files)
    return None


def _write(changes: dict, conv_id: str, local: Side | None, result: Side | None) -> None:
    """Record, against the local tree, what turns ``local`` into ``result``."""
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
