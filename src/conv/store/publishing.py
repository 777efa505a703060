"""What ``conv push --project`` puts on a person's side ref: the tree of the
ref as the remote has it (checked, as any foreign input), this machine's
conversations met with it, without what this store deleted or purged, and
without what only teammates' refs brought (theirs to push).

A conversation both this machine and the ref changed is this person's on two
machines: the two lines meet as sync's do (``_meet``), so two machines of one
person compose the same ref whoever pushes last: no line is dropped or
mixed, none flips."""

import os
from collections.abc import Callable

from ..format.model import META_FILE, Conversation
from ..home.key_shapes import key_shaped
from ..home.secrets import spans
from .layout import ROOT, TRASH, conversation_ids, folder, purged_ids
from .merge import Side, fork_name, fork_text, side
from .repo.git import GitStore
from .repo.objects import object_id
from .repo.snapshot import Existing, Snapshot

PUBLISHED = "refs/conv-published/"  # in the store: what this machine last published under each name
OWN = "refs/conv-own/"  # in the store: of that, this machine's own conversations' files (what it may take back)
FETCHED = "refs/conv-project/"  # in the store: what was last brought in of each project side ref


Masked = Callable[[str, dict[str, bytes]], dict[str, bytes]]  # a conversation's files as they may leave


def composed(git: GitStore, conv_ids: list[str], theirs: dict[str, dict[str, bytes]], name: str,
             out, masked: Masked | None = None, force: bool = False,
             published: str | None = None, teammates: frozenset | set = frozenset()) -> tuple[dict, dict]:
    """The side ref's tree (path -> an object of the store's, or new bytes),
    and this machine's own part of it (the same, of its own conversations'
    files); what it kept, made and held back noted on ``out``
    (project_refs.Pushed). Each conversation as ``masked`` gives it, the
    ref's as well as this machine's (the ref is this person's: what an
    earlier push masked less meets this one as the same line), met against
    the files this machine ``published`` as its own last time (a commit of
    the store's), a conversation of ``teammates``' turns alone (their blob
    ids) left to them; one holding a key is held back unless ``force``
    (then it goes masked)."""
    snap = git.snapshot()
    last = git.snapshot(published) if published else None
    own: dict[str, Side] = {}
    if masked is not None:
        theirs = {cid: masked(cid, files) for cid, files in theirs.items()}
    gone = purged_ids(snap) | set(conversation_ids(snap, TRASH))  # deleted here: off the ref too
    contents = {object_id(b"blob", data): data for files in theirs.values() for data in files.values()}
    ref = {cid: Side(ROOT, {n: object_id(b"blob", d) for n, d in files.items()})
           for cid, files in theirs.items() if cid not in gone}
    brought = _brought(git, name) | set(teammates)  # teammates' turns: what their refs hold, or brought here

    def read(sha: str) -> bytes:
        return contents[sha] if sha in contents else snap.blob(sha)

    for conv_id in conv_ids:
        mine = side(snap, conv_id)
        if mine is None or mine.root != ROOT or (mine.turns and set(mine.turns.values()) <= brought
                                                  and conv_id not in ref):
            continue  # nothing of this machine's in it: a teammate's, theirs to push (one's own ref has it: one's)
        leak = None if force else _leak(mine, read)
        if leak:
            out.held_back.append(f"{conv_id} holds {leak}: not pushed (conv push --project --force pushes it "
                                 "masked)")
            continue
        edited = {n for n, sha in mine.files.items() if n.endswith(".md") and b"\nedited: " in read(sha)[:4096]}
        if masked is not None:
            files = masked(conv_id, {n: read(sha) for n, sha in mine.files.items()})
            contents.update((object_id(b"blob", data), data) for data in files.values())
            mine = Side(ROOT, {n: object_id(b"blob", data) for n, data in files.items()})
        if conv_id in ref:
            before = side(last, conv_id) if last is not None else None
            # a turn a person edited (conv edit, on any of their machines) goes as this machine has it too
            out.forks += _meet(conv_id, mine, ref, read, {**(before.files if before else {}),
                                                          **{n: "" for n in edited}})
        else:
            ref[conv_id] = mine
        # this machine's own: the files that went out as it has them (not those another machine of this
        # person's pushed, kept in that one's bytes)
        own[conv_id] = Side(ROOT, {n: s for n, s in ref[conv_id].files.items() if mine.files.get(n) == s})
        out.mine += 1
    out.theirs = len(set(theirs) - set(conv_ids) - gone)
    return tuple({f"{folder(cid)}/{n}": _placed(v, contents) for cid, s in sides.items() for n, v in s.files.items()}
                 for sides in (ref, own))


def _meet(conv_id: str, mine: Side, ref: dict[str, Side], read: Callable, before: dict[str, str]) -> int:
    """This machine's line of ``conv_id`` and the ref's, both this person's,
    met in ``ref`` as sync meets two machines' lines (merge.merged), files
    known by their names and by what this machine pushed ``before``: the
    longer when one holds the other; when they went apart, the one whose
    first turn of its own is older keeps the conversation and the other goes
    to its fork, named by that turn's first file as sync names it (so whoever
    pushes, and whether the machines met by sync or here, the fork is the
    same). How many forks that made or grew."""
    # A file is known by its name (a turn's is its time and a random part), met against what this machine
    # published of it (``before``): one this machine published is as this machine has it now (edited, taken
    # out, or written over on the remote: its own again); one only another machine of this person's
    # pushed keeps the ref's bytes, however this machine would mask it (it knows another host name).
    theirs = Side(ROOT, {n: s for n, s in ref[conv_id].files.items() if n not in before or n in mine.files})
    files = {n: s if n in before or n not in theirs.files else theirs.files[n] for n, s in mine.files.items()}
    mine = Side(ROOT, files)
    mine_own = sorted(n for n in mine.others if n not in theirs.others)
    theirs_own = sorted(n for n in theirs.others if n not in mine.others)
    if not theirs_own:
        ref[conv_id] = mine
        return 0
    if not mine_own:
        ref[conv_id] = Side(ROOT, {**theirs.files, **{n: s for n, s in mine.files.items() if n in before}})
        return 0
    stays, moves, first = (theirs, mine, mine_own[0]) if theirs_own[0] < mine_own[0] else (mine, theirs, theirs_own[0])
    fork_id = fork_name(conv_id, first)
    ref[conv_id] = stays
    if fork_id in ref and not set(ref[fork_id].turns) <= set(moves.turns):
        return _meet(fork_id, Side(ROOT, {**moves.others, META_FILE: ref[fork_id].files[META_FILE]}), ref, read)
    shared = [n for n in sorted(moves.turns) if n in stays.turns]
    conv = Conversation.from_text(read(moves.files[META_FILE]).decode())
    meta = ref[fork_id].files[META_FILE] if fork_id in ref else fork_text(conv, conv_id, fork_id, first,
                                                                            shared[-1] if shared else "", "")
    ref[fork_id] = Side(ROOT, {**moves.others, META_FILE: meta})
    return 1


def _brought(git: GitStore, name: str) -> set[str]:
    """The turn files teammates' side refs brought into this store (their blob ids; not this person's own)."""
    found: set[str] = set()
    for other in git.refs.subkeys(FETCHED.encode()):
        if other.decode() != name:
            snap = git.snapshot(git.storage.ref(FETCHED + other.decode()))
            found |= {sha for conv_id in conversation_ids(snap) for n, sha in snap.files(folder(conv_id)).items()
                      if n != META_FILE and n.endswith(".md")}
    return found


def _placed(value: bytes | str, contents: dict[str, bytes]):
    """A file of the side ref's tree: new text, a file of the remote's (its bytes), or a blob of the store's."""
    if isinstance(value, bytes):
        return value
    return contents[value] if value in contents else Existing(value)


def _leak(mine: Side, read: Callable[[str], bytes]) -> str | None:
    """What in a conversation is a secret conv knows, or looks like a key (the
    pre-commit hook's patterns): said; None when nothing is."""
    if os.environ.get("CONV_ALLOW_SECRETS") == "1":
        return None
    for sha in mine.files.values():
        text = read(sha).decode("utf-8", "replace")
        if spans(text):
            return "a secret (a key or token of conv's config or environment, a password in a URL, a header's value)"
        if what := key_shaped(text):
            return f"what looks like {what}"
    return None


def image(folders: dict[str, dict[str, bytes]], snap: Snapshot) -> dict:
    """What was brought in of one side ref, to keep as its next base: its
    checked folders, but what this store purged (never back in the store)."""
    gone = purged_ids(snap)
    return {f"{folder(cid)}/{n}": data for cid, files in folders.items() if cid not in gone
            for n, data in files.items()}
