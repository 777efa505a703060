"""The store: conversations and turns kept as Markdown files in a bare git repository, the only code in
conv that touches git. Layout (docs/format.md): ``conversations/<c1>/<c2>/<id>/`` holds ``conversation.md``,
one ``<turn name>.md`` per turn and the files sent with them (c1 c2: the id's first two random characters):
each commit rewrites only small trees, even at 10,000 of them."""

from __future__ import annotations

import os
from functools import cached_property

from ..errors import StoreError
from ..home import paths
from ..records import dataclass
from .incoming import Incoming
from .repo.refs import BRANCH, read_ref

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of conv push): PEP 781's idiom
if TYPE_CHECKING:  # imported where used: conv push and conv remote load no module that reads conversations
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from ..format.model import Conversation, Turn
    from .ingest import Ingested
    from .kept_answers import KeptAnswers
    from .layout import Draft
    from .project_refs import ProjectRefs
    from .pull import MergeResult
    from .repo.git import CommitInfo, GitStore
    from .repo.hooks import Hooks
    from .repo.remotes import Remotes
    from .repo.snapshot import Snapshot
    from .repo.upkeep import Upkeep

__all__ = ["Incoming", "Store", "Written"]


@dataclass
class Written:
    """What one commit did: the commits before and after, and the conversation's turn names after it."""

    old: str | None
    new: str
    names: list[str]


class Store:
    """Conversations in, conversations out; commits are an implementation detail. The one public face of the
    store package: reading and writing conversations, remotes and transfers, projects' side refs and work
    trees, upkeep and hooks. ``hook_timeout`` is asked for only when a hook runs. ``kept_answers``: room
    reserved for answers, and kept ones (``notice`` hears of them). ``repo``: one open on another storage
    (the behaviour suite's in-memory one), used instead of ``path``."""

    def __init__(self, path: Path | str | None = None, hook_timeout: Callable[[], float] | None = None,
                 notice: Callable[[str], None] = lambda message: None, repo: GitStore | None = None):
        self.location = os.fspath(path) if path else paths.store_dir()
        self._hook_timeout, self._notice = hook_timeout, notice
        self._git: GitStore | None = repo
        self._last: Snapshot | None = None

    @cached_property
    def path(self) -> Path:
        """The repository's folder (conv push does with ``location``, a string, and no pathlib)."""
        from pathlib import Path
        return Path(self.location)

    @cached_property
    def _hooks(self) -> Hooks:
        from .repo.hooks import Hooks
        return Hooks(self.path, self._hook_timeout)

    @cached_property
    def kept_answers(self) -> KeptAnswers:
        from .kept_answers import KeptAnswers
        return KeptAnswers(self.path, self._notice, lambda: self._repo)

    @property
    def _repo(self) -> GitStore:
        """The repository (created on first use)."""
        if self._git is None:
            from .layout import STORE_README
            from .repo.git import GitStore

            self._git = GitStore.open(self.path, self._hooks, STORE_README, self.kept_answers)
        return self._git

    def _made(self) -> None:
        """The store exists from here on (created now if there is none)."""
        if self._git is None and not self.exists():
            self._repo

    @property
    def hooks(self) -> Hooks:
        """The store's git hooks: those installed, installing conv's (the store exists from here on)."""
        self._made()
        return self._hooks

    def _snapshot(self, commit: str | None) -> Snapshot:
        """A view of ``commit`` (default: the head), the last one reused: each tree is read once."""
        commit = commit if commit is not None else self._repo.head()
        if self._last is None or self._last.commit != commit:
            self._last = self._repo.snapshot(commit)
        return self._last

    def exists(self) -> bool:
        return self._git is not None or os.path.exists(os.path.join(self.location, "HEAD"))

    def head(self) -> str | None:
        if self._git is not None:
            return self._git.head()
        return read_ref(self.location, BRANCH) if self.exists() else None

    # -- reading ---------------------------------------------------------
    def has(self, conv_id: str, commit: str | None = None, trashed: bool = False) -> bool:
        from .layout import META_FILE, ROOT, TRASH, folder
        return self.exists() and self._snapshot(commit).read(
            f"{folder(conv_id, TRASH if trashed else ROOT)}/{META_FILE}") is not None

    def read(self, conv_id: str, commit: str | None = None, trashed: bool = False,
             wanted: "Callable[[str, str], bool] | None" = None, files: dict[str, str] | None = None) -> Conversation:
        """A conversation with its turns in transcript order (``trashed``: one in the trash); with ``wanted``, only
        the turn files (name, blob id) it says yes to (an index update); ``files``: what ``files()`` gave for it."""
        from ..format.model import order_turns
        from .layout import META_FILE, ROOT, TRASH, files_in, folder, parse_files

        root = TRASH if trashed else ROOT
        snap = self._snapshot(commit)
        files = files if files is not None else files_in(snap, conv_id, root)
        unreadable: dict[str, str] = {}
        parsed = parse_files(snap, folder(conv_id, root), files, unreadable, wanted)
        conv = parsed.pop(META_FILE)
        conv.turns = order_turns(list(parsed.values()))
        conv.unreadable = unreadable
        return conv

    def read_blobs(self, shas: list[str]) -> dict[str, bytes]:
        """Many blobs at once, by id (see batch.read_blobs), to hand to ``preload``."""
        return self._repo.read_blobs(shas)

    def preload(self, commit: str, blobs: dict[str, bytes]) -> None:
        """Blobs of ``commit`` read ahead (``read_blobs``), to be parsed next; they replace the last ones."""
        self._snapshot(commit).preload(blobs)

    def turn_text(self, sha: str) -> str:
        """The text (body) of the turn file with blob id ``sha``, for the full-text index, which keeps none."""
        from ..format.frontmatter import body_of
        from .layout import decode

        return body_of(decode(self._repo.storage.objects.read(sha)[1], sha), sha)

    def files(self, conv_id: str, commit: str | None = None, trashed: bool = False) -> dict[str, str]:
        """A conversation's files, name -> blob id (conversation.md included)."""
        from .layout import ROOT, TRASH, files_in

        return files_in(self._snapshot(commit), conv_id, TRASH if trashed else ROOT)

    def attachment(self, conv_id: str, file: str) -> bytes:
        """A file sent with one of a conversation's turns (its ``files``), as stored."""
        from .layout import attachment

        return attachment(self._snapshot(None), conv_id, file)

    def raw_files(self, conv_id: str, every: bool = False) -> list[tuple[str, bytes]]:
        """(path, bytes) of its Markdown files, conversation.md first (``every``: all, as push --project sends)."""
        from .layout import raw_files

        return raw_files(self._snapshot(None), conv_id, every)

    def history(self, known: Callable[[str], bool]) -> Iterator[tuple[CommitInfo, set[str]]]:
        """Commits not yet ``known``, newest first, each with the conversations it touched (message or tree diff)."""
        from ..format import ids

        head = self.head()
        if not head:
            return
        for info in self._repo.walk(head, known):
            prefix = info.message.split(":", 1)[0]
            if len(info.parents) == 1 and ids.ID_RE.match(prefix):
                yield info, {prefix}
            elif info.parents:
                yield info, self.changed_conversations(info.parents[0], info.sha)
            else:
                yield info, set()

    def conversation_ids(self, commit: str | None = None, trashed: bool = False) -> Iterator[str]:
        """Ids of the live conversations, or (``trashed``) of the deleted ones."""
        from .layout import ROOT, TRASH, conversation_ids

        return conversation_ids(self._snapshot(commit), TRASH if trashed else ROOT)

    def changed_conversations(self, old: str, new: str) -> set[str]:
        """Ids of the conversations that differ between two commits."""
        from .layout import changed_conversations

        return changed_conversations(self._repo.snapshot(old), self._repo.snapshot(new))

    # -- writing ---------------------------------------------------------
    def add_turns(self, conv_id: str, make_turns: Callable[[str | None], list[Turn]], message: str,
                  new_conversation: Conversation | None = None) -> Written:
        """Append turns in one commit: ``make_turns``, under the writer lock, gets their parent (the newest turn)."""
        from .edits import appended

        names: list[str] = []

        def build(snap: Snapshot):
            changes, names[:] = appended(snap, conv_id, make_turns, new_conversation)
            return changes, message

        old, new = self._repo.update(build)
        return Written(old, new, names)

    def change(self, conv_id: str, edit: Callable[["Draft"], str]) -> Written:
        """Read-modify-write under the writer lock: ``edit`` changes it via a Draft (hand-edits kept), says why."""
        from .layout import Draft

        names: list[str] = []

        def build(snap: Snapshot):
            draft = Draft(snap, conv_id)
            message = edit(draft)
            names[:] = draft.names_after()
            return draft.changes, message

        old, new = self._repo.update(build)
        return Written(old, new, names)

    def fork(self, source_id: str, fork: Conversation, names: list[str], message: str, at: str | None = None,
             turns: list[Turn] | tuple = ()) -> Written:
        """A new conversation: ``names`` of ``source_id``'s turns as of commit ``at`` (default: the head), the
        very same blobs (a fork copies no content), ``fork`` as its metadata, then ``turns`` of its own."""
        from .edits import forked

        def build(snap: Snapshot):
            if at is not None and not self._repo.is_ancestor(at, snap.commit):  # a purge rewrote history since
                raise StoreError(f"conversation {source_id} was purged from the store meanwhile", "Nothing was kept")
            source = self._repo.snapshot(at) if at is not None else snap
            return forked(snap, source, source_id, fork, names, turns), message

        old, new = self._repo.update(build)
        return Written(old, new, sorted([*names, *(t.name for t in turns)]))

    def ingest(self, incoming: list[Incoming], message: "Callable[[Ingested], str]", trusted: bool) -> "Ingested":
        """Conversations from outside, in one commit: what the store lacks added,
        what it holds met by merge.py's foreign rule (``trusted``: a tool's own
        sessions, else a teammate's), nothing purged brought back (ingest.py)."""
        from .ingest import ingest

        return ingest(self._repo, incoming, message, trusted)

    def move(self, conv_ids: list[str], to_trash: bool, message: str) -> Written:
        """Move whole conversation folders into the trash or back (no copy)."""
        from .bulk import move

        return Written(*move(self._repo, conv_ids, to_trash, message), [])

    def purge(self, conv_ids: list[str]) -> bool:
        """Erase deleted conversations everywhere, tombstoned (purge.py); no ids: end a purge. True: history moved."""
        from .purge import purge

        return purge(self._repo, conv_ids)

    def newly_purged(self, commit: str) -> list[str]:
        """Conversations this store holds that ``commit``'s tombstone names: what merging it erases here."""
        from .purge import newly_purged

        return newly_purged(self._repo, commit) if self.exists() else []

    # -- remotes, transfers and upkeep ------------------------------------
    @property
    def remotes(self) -> "Remotes":
        """The remotes in the store's git config, and transfers (the store exists from here on)."""
        from .repo.remotes import Remotes

        self._made()
        return Remotes(self.location)

    @property
    def projects(self) -> "ProjectRefs":
        """Conversations on side refs of projects' own repositories (project_refs.py)."""
        from .project_refs import ProjectRefs

        return ProjectRefs(self._repo)

    @property
    def work_tree(self):  # a project's own repository (conv blame, conv origin): repo/work_tree.py, a module
        from .repo import work_tree
        return work_tree

    def merge_from(self, commit: str, remote: str) -> "MergeResult":
        """Bring ``commit``, fetched from ``remote``, into the branch, losing no turn or purge (pull.py)."""
        from .pull import merge_from

        return merge_from(self._repo, commit, remote, self.changed_conversations)

    @property
    def upkeep(self) -> "Upkeep":
        """The git CLI in the store (``conv git``), gc and fsck."""
        from .repo.upkeep import Upkeep

        self._made()
        return Upkeep(self.path)
