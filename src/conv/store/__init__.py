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
from .git import GitStore, Snapshot

META_FILE = "conversation.md"
ROOT = "conversations"

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
    def has(self, conv_id: str, commit: str | None = None) -> bool:
        where = ids.conversation_path(conv_id)
        return self.exists() and self.git.snapshot(commit).read(f"{where}/{META_FILE}") is not None

    def read(self, conv_id: str, commit: str | None = None, cache: "ParsedCache | None" = None) -> Conversation:
        """A conversation with its turns in transcript order. With a ``cache``,
        files parsed before (same blob) are not parsed again; without one, every
        object keeps its YAML mapping, so a rewrite preserves hand edits."""
        snap = self.git.snapshot(commit)
        files = _files(snap, conv_id)
        parsed = _parse(snap, ids.conversation_path(conv_id), files, cache)
        conv = parsed.pop(META_FILE)
        conv.turns = order_turns(list(parsed.values()))
        return conv

    def read_header(self, conv_id: str, commit: str | None = None, cache: "ParsedCache | None" = None) -> tuple[Conversation, list[str]]:
        """A conversation's metadata and its turn names, without reading the turns."""
        snap = self.git.snapshot(commit)
        files = _files(snap, conv_id)
        conv = _parse(snap, ids.conversation_path(conv_id), {META_FILE: files.pop(META_FILE)}, cache)[META_FILE]
        return conv, sorted(name[:-3] for name in files)

    def raw_files(self, conv_id: str, commit: str | None = None) -> dict[str, bytes]:
        snap = self.git.snapshot(commit)
        return {name: snap.blob(sha) for name, sha in _files(snap, conv_id).items()}

    def conversation_ids(self, commit: str | None = None) -> Iterator[str]:
        snap = self.git.snapshot(commit)
        for first in snap.listdir(ROOT):
            for second in snap.listdir(f"{ROOT}/{first}"):
                yield from snap.listdir(f"{ROOT}/{first}/{second}")

    def changed_conversations(self, old: str, new: str) -> set[str]:
        """Ids of the conversations that differ between two commits."""
        out = set()
        for path in self.git.changed_paths(old, new):
            parts = path.split("/")
            if len(parts) >= 4 and parts[0] == ROOT:
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

    def write(self, changes: dict[str, bytes | None], message: str) -> str:
        """A raw change of paths (for services that rewrite metadata)."""
        return self.git.update(lambda snap: (changes, message))[1]



class ParsedCache(Protocol):
    """Somewhere to keep parsed files by blob id (the index): a blob never
    changes, so neither does what it parses to."""

    def get_parsed(self, shas: list[str]) -> dict[str, dict]: ...

    def put_parsed(self, parsed: dict[str, dict]) -> None: ...


def _files(snap: Snapshot, conv_id: str) -> dict[str, str]:
    """conversation.md and the turn files of a conversation: name -> blob id."""
    files = {n: sha for n, sha in snap.files(ids.conversation_path(conv_id)).items() if n.endswith(".md")}
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
