"""The store: conversations and turns kept as Markdown files in a bare git
repository. This package is the only code in conv that touches git.

Layout (docs/format.md): ``conversations/<shard>/<id>/conversation.md`` plus
one ``<turn name>.md`` per turn. Sharding by the id's first two random
characters keeps each commit's rewritten trees small at 10,000 conversations.
"""

from collections.abc import Callable, Iterator
from pathlib import Path

from .. import ids, paths
from ..errors import RefError, StoreError
from ..format import FORMAT_VERSION, Conversation, Turn, order_turns
from .git import GitStore, Snapshot

META_FILE = "conversation.md"
ROOT = "conversations"

STORE_README = f"""# conv store

LLM conversations kept by [conv](https://pypi.org/project/conv-git/), format version {FORMAT_VERSION}.
Each conversation is a folder `conversations/<shard>/<id>/` holding `conversation.md`
(its metadata as YAML frontmatter) and one Markdown file per turn, named by time.
""".encode()


class Store:
    """Conversations in, conversations out; commits are an implementation detail."""

    def __init__(self, path: Path | None = None):
        self.path = path or paths.store_dir()
        self._git: GitStore | None = None

    @property
    def git(self) -> GitStore:
        if self._git is None:
            self._git = GitStore.open(self.path, readme=STORE_README)
        return self._git

    def exists(self) -> bool:
        return (self.path / "HEAD").exists()

    def head(self) -> str | None:
        return self.git.head() if self.exists() else None

    # -- reading ---------------------------------------------------------
    def read(self, conv_id: str, commit: str | None = None) -> Conversation:
        return read_conversation(self.git.snapshot(commit), conv_id)

    def read_header(self, conv_id: str, commit: str | None = None) -> tuple[Conversation, list[str]]:
        """A conversation's metadata and its turn names, without reading the turns."""
        snap = self.git.snapshot(commit)
        where = ids.conversation_path(conv_id)
        data = snap.read(f"{where}/{META_FILE}")
        if data is None:
            raise RefError(f"conversation {conv_id} is not in the store", "See conv list")
        conv = Conversation.from_text(_decode(data, where), f"{where}/{META_FILE}")
        names = sorted(n[:-3] for n in snap.listdir(where) if n != META_FILE and n.endswith(".md"))
        return conv, names

    def raw_files(self, conv_id: str, commit: str | None = None) -> dict[str, bytes]:
        files = self.git.snapshot(commit).read_dir(ids.conversation_path(conv_id))
        if META_FILE not in files:
            raise RefError(f"conversation {conv_id} is not in the store", "See conv list")
        return files

    def conversation_ids(self, commit: str | None = None) -> Iterator[str]:
        snap = self.git.snapshot(commit)
        for shard in snap.listdir(ROOT):
            for conv_id in snap.listdir(f"{ROOT}/{shard}"):
                yield conv_id

    def changed_conversations(self, old: str, new: str) -> set[str]:
        """Ids of the conversations that differ between two commits."""
        out = set()
        for path in self.git.changed_paths(old, new):
            parts = path.split("/")
            if len(parts) >= 3 and parts[0] == ROOT:
                out.add(parts[2])
        return out

    # -- writing ---------------------------------------------------------
    def add_turns(
        self,
        conv_id: str,
        make_turns: Callable[[str | None], list[Turn]],
        message: str,
        new_conversation: Conversation | None = None,
    ) -> tuple[str | None, str]:
        """Append turns in one commit. ``make_turns`` runs under the writer lock
        and gets the newest existing turn's name, the new turns' parent.
        Returns (old commit, new commit)."""
        where = ids.conversation_path(conv_id)

        def build(snap: Snapshot):
            names = sorted(n for n in snap.listdir(where) if n != META_FILE and n.endswith(".md"))
            exists = snap.read(f"{where}/{META_FILE}") is not None
            changes: dict[str, bytes | None] = {}
            if new_conversation is not None:
                if exists or names:
                    raise StoreError(f"conversation {conv_id} already exists")
                changes[f"{where}/{META_FILE}"] = new_conversation.to_text().encode()
            elif not exists:
                raise RefError(f"conversation {conv_id} is not in the store", "See conv list")
            for turn in make_turns(names[-1][:-3] if names else None):
                changes[f"{where}/{turn.name}.md"] = turn.to_text().encode()
            return changes, message

        return self.git.update(build)

    def write(self, changes: dict[str, bytes | None], message: str) -> str:
        """A raw change of paths (for services that rewrite metadata)."""
        return self.git.update(lambda snap: (changes, message))[1]


def read_conversation(snap: Snapshot, conv_id: str) -> Conversation:
    where = ids.conversation_path(conv_id)
    files = snap.read_dir(where)
    if META_FILE not in files:
        raise RefError(f"conversation {conv_id} is not in the store", "See conv list")
    conv = Conversation.from_text(_decode(files.pop(META_FILE), where), f"{where}/{META_FILE}")
    turns = [
        Turn.from_text(name[:-3], _decode(data, f"{where}/{name}"))
        for name, data in files.items()
        if name.endswith(".md")
    ]
    conv.turns = order_turns(turns)
    return conv


def _decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise StoreError(f"{where} is not UTF-8 text", "Fix it with conv git, or restore it from history") from None
