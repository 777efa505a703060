"""A conversation's folder in a commit: where it lives, its files, and
reading them."""

from collections.abc import Callable

from ..errors import RefError, StoreError
from ..format import ids
from ..format.model import FORMAT_VERSION, META_FILE, Conversation, Turn, order_turns
from .repo.snapshot import Snapshot

ROOT = "conversations"
TRASH = "trash"  # deleted conversations wait here, whole, until restored or purged
PURGED = "purged.txt"  # the tombstone: ids of purged conversations, one a line, never their text

STORE_README = f"""# conv store

LLM conversations kept by [conv](https://pypi.org/project/conv-git/), format version {FORMAT_VERSION}.
Each conversation is a folder `conversations/<shard>/<id>/` holding `conversation.md`
(its metadata as YAML frontmatter) and one Markdown file per turn, named by time.
""".encode()


def shard_path(conv_id: str) -> str:
    """``c1/c2/id``: where a conversation sits under ROOT or TRASH."""
    return ids.conversation_path(conv_id).split("/", 1)[1]


def folder(conv_id: str, root: str = ROOT) -> str:
    return f"{root}/{shard_path(conv_id)}"


class Draft:
    """A conversation being changed inside ``Store.change``."""

    def __init__(self, snap: Snapshot, conv_id: str):
        self._snap = snap
        self.where = ids.conversation_path(conv_id)
        self.files = files_in(snap, conv_id)
        text = decode(snap.blob(self.files[META_FILE]), f"{self.where}/{META_FILE}")
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
        return Turn.from_text(name, decode(self._snap.blob(sha), path), path)

    def save_meta(self) -> None:
        self.changes[f"{self.where}/{META_FILE}"] = self.conv.to_text().encode()

    def put(self, turn: Turn) -> None:
        self.changes.update(turn_files(self.where, turn))

    def remove(self, name: str) -> None:
        self.turn(name)  # it must exist
        self.changes[f"{self.where}/{name}.md"] = None
        for file in attachments_of(self._snap.files(self.where), [name]):
            self.changes[f"{self.where}/{file}"] = None

    def names_after(self) -> list[str]:
        names = set(self.turn_names)
        for path, content in self.changes.items():
            name = path.rsplit("/", 1)[1]
            if name != META_FILE and name.endswith(".md"):  # not a file sent with a turn
                (names.discard if content is None else names.add)(name[:-3])
        return sorted(names)


def turn_files(where: str, turn: Turn) -> dict[str, bytes]:
    """path -> content of a turn's file and of the files sent with it (-f)."""
    return {f"{where}/{turn.name}.md": turn.to_text().encode(),
            **{f"{where}/{file}": data for file, data in turn.attached.items()}}


def attachments_of(files: dict[str, str], turn_names: list[str]) -> dict[str, str]:
    """Of a folder's files (name -> blob id), those sent with the named turns."""
    prefixes = tuple(f"{name}." for name in turn_names)
    return {n: sha for n, sha in files.items() if n.startswith(prefixes) and not n.endswith(".md")} if prefixes else {}


def attachment(snap: Snapshot, conv_id: str, file: str) -> bytes:
    data = snap.read(f"{folder(conv_id)}/{file}")
    if data is None:
        raise StoreError(f"conversation {conv_id} has no file {file}", "Restore it from history with conv git")
    return data


def files_in(snap: Snapshot, conv_id: str, root: str = ROOT) -> dict[str, str]:
    """conversation.md and the turn files of a conversation: name -> blob id."""
    files = {n: sha for n, sha in snap.files(folder(conv_id, root)).items() if n.endswith(".md")}
    if META_FILE not in files:
        raise RefError(f"conversation {conv_id} is not in the store", "See conv list")
    return files


def raw_files(snap: Snapshot, conv_id: str, every: bool = False) -> list[tuple[str, bytes]]:
    """(path in the store, bytes) of a conversation's Markdown files (``every``: its
    folder's every file, the files sent with turns too), conversation.md first."""
    files = snap.files(folder(conv_id)) if every else files_in(snap, conv_id)
    where = folder(conv_id)
    return [(f"{where}/{name}", snap.blob(files[name])) for name in sorted(files, key=lambda n: (n != META_FILE, n))]


def parse_files(snap: Snapshot, where: str, files: dict[str, str], unreadable: dict[str, str],
                wanted: Callable[[str, str], bool] | None = None) -> dict:
    """name -> Conversation (for conversation.md) or Turn. A turn file that
    cannot be read is left out and named in ``unreadable`` with the reason;
    conversation.md cannot be. With ``wanted``, only the turn files (name,
    blob id) it says yes to are read."""
    out = {}
    for name, sha in files.items():
        if wanted is not None and name != META_FILE and not wanted(name, sha):
            continue
        path = f"{where}/{name}"
        try:
            raw = decode(snap.blob(sha), path)
            out[name] = Conversation.from_text(raw, path) if name == META_FILE else Turn.from_text(name[:-3], raw, path)
        except StoreError as exc:
            if name == META_FILE:
                raise
            unreadable[path] = exc.message
    return out


def decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise StoreError(f"{where} is not UTF-8 text", "Fix it with conv git, or restore it from history") from None


def purged_ids(snap: Snapshot) -> frozenset[str]:
    """The ids the commit's tombstone names (lines that are no id are ignored)."""
    data = snap.read(PURGED) if snap.commit else None
    lines = data.decode("utf-8", "replace").split() if data else []
    return frozenset(line for line in lines if ids.ID_RE.match(line))


def purged_text(conv_ids) -> bytes:
    return "".join(f"{conv_id}\n" for conv_id in sorted(conv_ids)).encode()


def changed_conversations(old: Snapshot, new: Snapshot) -> set[str]:
    """Ids whose folder differs between two commits, live or in the trash.
    Only the shard trees that differ are read, never a conversation's own
    (a commit adding 10,000 conversations is compared in 0.1 s)."""
    out: set[str] = set()

    def compare(path: str, depth: int) -> None:
        before, after = old.dir(path) or {}, new.dir(path) or {}
        for name in before.keys() | after.keys():
            if before.get(name) != after.get(name):
                text = name.decode("utf-8", "surrogateescape")
                out.add(text) if depth == 0 else compare(f"{path}/{text}", depth - 1)

    for root in (ROOT, TRASH):
        compare(root, 2)
    return out


def conversation_ids(snap: Snapshot, root: str = ROOT):
    """Ids under ``root``: the live conversations, or (TRASH) the deleted ones."""
    for first in snap.listdir(root):
        for second in snap.listdir(f"{root}/{first}"):
            yield from snap.listdir(f"{root}/{first}/{second}")
