"""A teammate's side ref (``refs/conv/NAME`` in a project's repository, what
their ``conv push --project`` wrote), read as the untrusted input it is.
Every file of its tree is a record (path, mode, kind, size) checked against
the shape of a conversation's folder in a store before anything of it is
read: a ``.git`` or ``..`` entry, a folder that is not an id under its own
shard, a name that is no turn's, a link, a tree where a file belongs, a file
of absurd size: each is left out with one line naming the ref and the path.
What is read must then be what conv writes: UTF-8 Markdown with frontmatter
(no YAML aliases), conversation.md naming its own folder's id, each turn's
role the one its name says, and no key in it (the pre-commit hook's
patterns; ``CONV_ALLOW_SECRETS=1`` lets one through, as for the hook)."""

import os
import re
from collections.abc import Callable

from ..errors import ConvError
from ..format import ids
from ..format.model import META_FILE, Conversation, Turn
from ..home.secrets import look_alikes
from ..records import dataclass
from .boundary import fitting
from .shape import Misfit, Shape

MOST_BYTES = 50 * 1024 * 1024  # a file of a conversation past this is no turn of anyone's
_TURN = r"\d{8}-\d{6}\.\d{3}-[0-9a-z]{4}-(?:user|assistant|system)"
_FILE = re.compile(rf"^(?:{re.escape(META_FILE)}|{_TURN}\.md|{_TURN}\.\d+\.[a-z0-9]{{1,10}})$")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$")


@dataclass
class RefFile:
    """One entry of a side ref's tree, as git lists it (``git ls-tree -r -l``)."""

    path: str
    mode: str
    kind: str
    sha: str
    size: int | None


class _Entry(Shape):
    """A file where a store keeps one of a conversation's: a plain file (no
    link, no tree, no submodule) at conversations/<c1>/<c2>/<id>/<file>, its
    size known (git names every entry it lists; the path is said as it is)."""

    def check(self, value, where=""):
        path = value["path"]
        parts = path.split("/")
        if len(parts) != 5 or parts[0] != "conversations" or not ids.ID_RE.match(parts[3]) \
                or "/".join(parts[1:3]) != ids.shard_of(parts[3]) or not _FILE.match(parts[4]):
            raise Misfit(f"{path}: not a file of a conversation")
        if value["kind"] != "blob" or value["mode"] != "100644" or not isinstance(value["size"], int):
            raise Misfit(f"{path}: not a plain file")
        return value


def checked(ref: str, entries: list[RefFile], blobs: Callable[[list[str]], dict[str, bytes]]
            ) -> tuple[dict[str, dict[str, bytes]], list[str]]:
    """The conversations of ``ref`` that may come in (id -> file name -> bytes),
    and one line for each thing left out."""
    name = ref.rsplit("/", 1)[-1]
    if not NAME.match(name):
        return {}, [f"{ref}: not a name conv push --project writes: left out whole"]
    records = [{"path": e.path, "kind": e.kind, "mode": e.mode, "size": e.size, "sha": e.sha} for e in entries]
    kept, misfits = fitting(records, _Entry())
    said = [f"{ref}: {why}; left out" for why in misfits]
    big = [r for r in kept if r["size"] > MOST_BYTES]
    said += [f"{ref}: {r['path']}: {r['size']:,} bytes, more than a turn's file; left out" for r in big]
    wanted = [r for r in kept if r["size"] <= MOST_BYTES]
    data = blobs([r["sha"] for r in wanted])
    folders: dict[str, dict[str, bytes]] = {}
    for r in wanted:
        conv_id, file = r["path"].split("/")[3:]
        content = data.get(r["sha"])
        why = "not in the repository" if content is None else _unfit(conv_id, file, content)
        if why:
            said.append(f"{ref}: {r['path']}: {why}; left out")
        else:
            folders.setdefault(conv_id, {})[file] = content
    for conv_id in [c for c, files in folders.items() if META_FILE not in files]:
        del folders[conv_id]
        said.append(f"{ref}: conversation {conv_id} has no readable {META_FILE}; left out")
    return folders, said


def _unfit(conv_id: str, file: str, content: bytes) -> str | None:
    """Why a file of a teammate's conversation cannot come in (None: it can)."""
    if file.endswith(".md"):
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            return "not UTF-8 text"
        try:
            if file == META_FILE:
                found = Conversation.from_text(text, file).id
                if found != conv_id:
                    return f"names conversation {found[:40]!r}, not its folder's"
            elif Turn.from_text(file[:-3], text, file).role != file[:-3].rsplit("-", 1)[1]:
                return "its role is not the one its name says"
        except ConvError as exc:
            return exc.message.removeprefix(f"{file}: ")
    else:
        text = content.decode("utf-8", "replace")
    if os.environ.get("CONV_ALLOW_SECRETS") != "1":
        for what, _ in look_alikes(text)[:1]:
            return f"holds what looks like {what} (CONV_ALLOW_SECRETS=1 brings it in)"
    return None
