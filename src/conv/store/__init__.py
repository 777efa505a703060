"""The store: conversations and turns kept as Markdown files in a bare git
repository. This package is the only code in conv that touches git.

Layout (docs/format.md): ``conversations/<c1>/<c2>/<id>/conversation.md``
plus one ``<turn name>.md`` per turn, where c1 c2 are the first two random
characters of the id: each commit rewrites only small trees, even at 10,000
conversations.
"""

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol
from pathlib import Path

from .. import ids, paths
from ..errors import RefError, StoreError
from ..format import FORMAT_VERSION, Conversation, Turn, order_turns
from .git import CommitInfo, Existing, GitStore, Snapshot

META_FILE = "conversation.md"
ROOT = "conversations"
TRASH = "trash"  # deleted conversations wait here, whole, until restored or purged

STORE_README = f"""# conv store

LLM conversations kept by [conv](https://pypi.org/project/conv-git/), format version {FORMAT_VERSION}.
Each conversation is a folder `conversations/<shard>/<id>/` holding `conversation.md`
(its metadata as YAML frontmatter) and one Markdown file per turn, named by time.
""".encode()


@dataclass
class Written:
    """What one commit did: the commits before and after, and the turn names
    the conversation has after it."""

    old: str | None
    new: str
    names: list[str]


class Store:
    """Conversations in, conversations out; commits are an implementation detail."""

    hook_timeout = GitStore.hook_timeout

    def __init__(self, path: Path | None = None):
        self.path = path or paths.store_dir()
        self._git: GitStore | None = None

    @property
    def git(self) -> GitStore:
        if self._git is None:
            self._git = GitStore.open(self.path, readme=STORE_README)
            self._git.hook_timeout = self.hook_timeout
        return self._git

    def exists(self) -> bool:
        return (self.path / "HEAD").exists()

    def head(self) -> str | None:
        return self.git.head() if self.exists() else None

    # -- reading ---------------------------------------------------------
    def has(self, conv_id: str, commit: str | None = None) -> bool:
        where = ids.conversation_path(conv_id)
        return self.exists() and self.git.snapshot(commit).read(f"{where}/{META_FILE}") is not None

    def read(
        self, conv_id: str, commit: str | None = None, cache: "ParsedCache | None" = None, root: str = ROOT
    ) -> Conversation:
        """A conversation with its turns in transcript order. With a ``cache``,
        files parsed before (same blob) are not parsed again; without one, every
        object keeps its YAML mapping, so a rewrite preserves hand edits."""
        snap = self.git.snapshot(commit)
        files = _files(snap, conv_id, root)
        parsed = _parse(snap, _where(conv_id, root), files, cache)
        conv = parsed.pop(META_FILE)
        conv.turns = order_turns(list(parsed.values()))
        return conv

    def files(self, conv_id: str, commit: str | None = None, root: str = ROOT) -> dict[str, str]:
        """A conversation's files, name -> blob id (conversation.md included)."""
        return _files(self.git.snapshot(commit), conv_id, root)

    def trashed(self, conv_id: str, commit: str | None = None) -> bool:
        snap = self.git.snapshot(commit) if self.exists() else None
        return snap is not None and snap.read(f"{TRASH}/{_shard_path(conv_id)}/{META_FILE}") is not None

    def raw_files(self, conv_id: str, commit: str | None = None) -> dict[str, bytes]:
        snap = self.git.snapshot(commit)
        return {name: snap.blob(sha) for name, sha in _files(snap, conv_id).items()}

    def history(self, known: Callable[[str], bool]) -> Iterator[tuple[CommitInfo, set[str]]]:
        """Commits not yet ``known``, newest first, each with the conversations it
        touched: named by conv's own commit messages, else found by a tree diff."""
        head = self.head()
        if not head:
            return
        for info in self.git.walk(head, known):
            prefix = info.message.split(":", 1)[0]
            if len(info.parents) == 1 and ids.ID_RE.match(prefix):
                yield info, {prefix}
            elif info.parents:
                yield info, self.changed_conversations(info.parents[0], info.sha)
            else:
                yield info, set()

    def conversation_ids(self, commit: str | None = None, root: str = ROOT) -> Iterator[str]:
        """Ids under ``root``: the live conversations, or (TRASH) the deleted ones."""
        snap = self.git.snapshot(commit)
        for first in snap.listdir(root):
            for second in snap.listdir(f"{root}/{first}"):
                yield from snap.listdir(f"{root}/{first}/{second}")

    def changed_conversations(self, old: str, new: str) -> set[str]:
        """Ids of the conversations that differ between two commits."""
        out = set()
        for path in self.git.changed_paths(old, new):
            parts = path.split("/")
            if len(parts) >= 4 and parts[0] in (ROOT, TRASH):
                out.add(parts[3])
        return out

    # -- writing ---------------------------------------------------------
    def add_turns(
        self,
        conv_id: str,
        make_turns: Callable[[str | None], list[Turn]],
        message: str,
        new_conversation: Conversation | None = None,
    ) -> "Written":
        """Append turns in one commit. ``make_turns`` runs under the writer lock
        and gets the newest existing turn's name, the new turns' parent."""
        where = ids.conversation_path(conv_id)
        names: list[str] = []

        def build(snap: Snapshot):
            files = sorted(n for n in snap.listdir(where) if n != META_FILE and n.endswith(".md"))
            exists = snap.read(f"{where}/{META_FILE}") is not None
            changes: dict[str, bytes | None] = {}
            if new_conversation is not None:
                if exists or files:
                    raise StoreError(f"conversation {conv_id} already exists")
                changes[f"{where}/{META_FILE}"] = new_conversation.to_text().encode()
            elif not exists:
                raise RefError(f"conversation {conv_id} is not in the store", "See conv list")
            existing = [n[:-3] for n in files]
            for turn in make_turns(existing[-1] if existing else None):
                changes[f"{where}/{turn.name}.md"] = turn.to_text().encode()
                existing.append(turn.name)
            names[:] = sorted(existing)
            return changes, message

        old, new = self.git.update(build)
        return Written(old, new, names)

    def change(self, conv_id: str, edit: Callable[["Draft"], str]) -> Written:
        """One read-modify-write of a conversation under the writer lock: ``edit``
        gets the conversation as stored (hand-edited YAML kept), changes it
        through the Draft and returns the commit message."""
        names: list[str] = []

        def build(snap: Snapshot):
            draft = Draft(snap, conv_id)
            message = edit(draft)
            names[:] = draft.names_after()
            return draft.changes, message

        old, new = self.git.update(build)
        return Written(old, new, names)

    def fork(self, source_id: str, fork: Conversation, names: list[str], message: str) -> Written:
        """A new conversation holding ``names`` of ``source_id``'s turns, the very
        same blobs (a fork copies no content), with ``fork`` as its metadata."""

        def build(snap: Snapshot):
            files = _files(snap, source_id)
            missing = [n for n in names if f"{n}.md" not in files]
            if missing:
                raise StoreError(f"conversation {source_id} has no turn {missing[0]}")
            where = ids.conversation_path(fork.id)
            if snap.read(f"{where}/{META_FILE}") is not None:
                raise StoreError(f"conversation {fork.id} already exists")
            changes: dict = {f"{where}/{META_FILE}": fork.to_text().encode()}
            for name in names:
                changes[f"{where}/{name}.md"] = Existing(files[f"{name}.md"])
            return changes, message

        old, new = self.git.update(build)
        return Written(old, new, sorted(names))

    def add_many(self, items: list[tuple[Conversation, list[Turn]]], message: str) -> tuple[Written | None, int, int]:
        """Conversations and turns that are not in the store yet, in one commit
        (an import); what exists is left alone. Returns (written or None when
        nothing was new, conversations added, turns added)."""
        counts = [0, 0]

        def build(snap: Snapshot):
            changes: dict = {}
            counts[:] = [0, 0]
            for conv, turns in items:
                where = _where(conv.id)
                present = set(snap.listdir(where))
                if META_FILE not in present:
                    changes[f"{where}/{META_FILE}"] = conv.to_text().encode()
                    counts[0] += 1
                for turn in turns:
                    if f"{turn.name}.md" not in present:
                        changes[f"{where}/{turn.name}.md"] = turn.to_text().encode()
                        counts[1] += 1
            if not changes:
                raise _NothingNew
            return changes, message

        try:
            old, new = self.git.update(build)
        except _NothingNew:
            return None, 0, 0
        return Written(old, new, []), counts[0], counts[1]

    def merge_from(self, remote: str, label: str) -> "MergeResult":
        """Bring the commit ``remote`` (already fetched) into the branch: nothing
        when it is already contained, a fast-forward when the branch is behind,
        else a merge commit that keeps every turn (see merge.py). The head
        before anything moves is kept under refs/conv/backup/."""
        from .merge import merge

        git = self.git
        result = MergeResult("up to date")

        def build(snap: Snapshot):
            local = snap.commit
            base = git.merge_base(local, remote)
            local_info, remote_info = next(git.walk(local)), next(git.walk(remote))
            if base:
                changed = self.changed_conversations(base, local) | self.changed_conversations(base, remote)
            else:  # unrelated histories (two stores created apart): every conversation
                changed = {*self.conversation_ids(local), *self.conversation_ids(local, TRASH),
                           *self.conversation_ids(remote), *self.conversation_ids(remote, TRASH)}
            merged = merge(git.snapshot(base) if base else None, snap, git.snapshot(remote), changed,
                           (local_info.time, local), (remote_info.time, remote))
            result.kind, result.moved, result.forks = "merged", merged.moved, merged.forks
            result.backup = git.keep_backup(local)
            note = f", {merged.forks} diverged line(s) kept as forks" if merged.forks else ""
            return merged.changes, f"sync: merge {label}{note}", [remote]

        local = self.head()
        if local == remote or (local and git.merge_base(local, remote) == remote):
            return result
        if local is None or git.merge_base(local, remote) == local:
            if local:
                result.backup = git.keep_backup(local)
            git.fast_forward(local, remote)
            result.kind = "fast-forward"
            return result
        git.update(build)
        return result

    def purge(self, conv_ids: list[str]) -> int:
        """Erase deleted conversations from the trash and from every commit
        (history is rewritten); the commits rewritten."""
        snap = self.git.snapshot()
        for conv_id in conv_ids:
            if snap.entry(f"{TRASH}/{_shard_path(conv_id)}") is None:
                raise RefError(f"conversation {conv_id} is not in the trash", "Delete it first: conv delete REF")
        return self.git.rewrite_without([f"{root}/{_shard_path(c)}" for c in conv_ids for root in (ROOT, TRASH)])

    def move(self, conv_ids: list[str], to_trash: bool, message: str) -> Written:
        """Move whole conversation folders into the trash or back (no copy)."""
        src, dst = (ROOT, TRASH) if to_trash else (TRASH, ROOT)

        def build(snap: Snapshot):
            changes: dict = {}
            for conv_id in conv_ids:
                entry = snap.entry(f"{src}/{_shard_path(conv_id)}")
                if entry is None:
                    where = "the trash" if src == TRASH else "the store"
                    raise RefError(f"conversation {conv_id} is not in {where}")
                changes[f"{src}/{_shard_path(conv_id)}"] = None
                changes[f"{dst}/{_shard_path(conv_id)}"] = entry
            return changes, message

        old, new = self.git.update(build)
        return Written(old, new, [])



class ParsedCache(Protocol):
    """Somewhere to keep parsed files by blob id (the index): a blob never
    changes, so neither does what it parses to."""

    def get_parsed(self, shas: list[str]) -> dict[str, dict]: ...

    def put_parsed(self, parsed: dict[str, dict]) -> None: ...


@dataclass
class MergeResult:
    kind: str  # "up to date", "fast-forward" or "merged"
    moved: dict[str, str] = None  # conversation -> fork now holding this machine's line
    forks: int = 0
    backup: str | None = None

    def __post_init__(self):
        self.moved = self.moved or {}


class _NothingNew(Exception):
    """Raised inside a build to leave the store as it is."""


def _shard_path(conv_id: str) -> str:
    """``c1/c2/id``: where a conversation sits under ROOT or TRASH."""
    return ids.conversation_path(conv_id).split("/", 1)[1]


def _where(conv_id: str, root: str = ROOT) -> str:
    return f"{root}/{_shard_path(conv_id)}"


class Draft:
    """A conversation being changed inside ``Store.change``."""

    def __init__(self, snap: Snapshot, conv_id: str):
        self._snap = snap
        self.where = ids.conversation_path(conv_id)
        self.files = _files(snap, conv_id)
        text = _decode(snap.blob(self.files[META_FILE]), f"{self.where}/{META_FILE}")
        self.conv = Conversation.from_text(text, f"{self.where}/{META_FILE}")
        self.changes: dict = {}

    @property
    def turn_names(self) -> list[str]:
        return sorted(n[:-3] for n in self.files if n != META_FILE)

    def turns(self) -> list[Turn]:
        """Every turn as stored (full fidelity), in transcript order."""
        return order_turns([self.turn(name) for name in self.turn_names])

    def turn(self, name: str) -> Turn:
        sha = self.files.get(f"{name}.md")
        if sha is None:
            raise StoreError(f"conversation {self.conv.id} has no turn {name}")
        path = f"{self.where}/{name}.md"
        return Turn.from_text(name, _decode(self._snap.blob(sha), path), path)

    def save_meta(self) -> None:
        self.changes[f"{self.where}/{META_FILE}"] = self.conv.to_text().encode()

    def put(self, turn: Turn) -> None:
        self.changes[f"{self.where}/{turn.name}.md"] = turn.to_text().encode()

    def remove(self, name: str) -> None:
        self.turn(name)  # it must exist
        self.changes[f"{self.where}/{name}.md"] = None

    def names_after(self) -> list[str]:
        names = set(self.turn_names)
        for path, content in self.changes.items():
            name = path.rsplit("/", 1)[1]
            if name != META_FILE:
                (names.discard if content is None else names.add)(name[:-3])
        return sorted(names)


def _files(snap: Snapshot, conv_id: str, root: str = ROOT) -> dict[str, str]:
    """conversation.md and the turn files of a conversation: name -> blob id."""
    files = {n: sha for n, sha in snap.files(_where(conv_id, root)).items() if n.endswith(".md")}
    if META_FILE not in files:
        raise RefError(f"conversation {conv_id} is not in the store", "See conv list")
    return files


def _parse(snap: Snapshot, where: str, files: dict[str, str], cache: ParsedCache | None) -> dict:
    """name -> Conversation (for conversation.md) or Turn, via the cache when given."""
    known = cache.get_parsed(list(files.values())) if cache else {}
    out, fresh = {}, {}
    for name, sha in files.items():
        if sha in known:
            data = known[sha]
            out[name] = Conversation.from_dict(data) if name == META_FILE else Turn.from_dict({**data, "name": name[:-3]})
            continue
        text = _decode(snap.blob(sha), f"{where}/{name}")
        obj = Conversation.from_text(text, f"{where}/{name}") if name == META_FILE else Turn.from_text(name[:-3], text, f"{where}/{name}")
        out[name] = obj
        fresh[sha] = obj.to_dict(with_turns=False) if name == META_FILE else obj.to_dict()
    if cache and fresh:
        cache.put_parsed(fresh)
    return out

def _decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise StoreError(f"{where} is not UTF-8 text", "Fix it with conv git, or restore it from history") from None
