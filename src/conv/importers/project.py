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

import re
from collections.abc import Callable

from ..errors import ConvError
from ..format import ids
from ..format.model import META_FILE, Conversation, Turn
from ..home.key_shapes import key_shaped
from .boundary import fitting
from .shape import Misfit, Shape

MOST_BYTES = 16 * 1024 * 1024  # a file of a conversation past this is no turn of anyone's
MOST_IN_ALL = 256 * 1024 * 1024  # what one person's ref may bring in one import
MOST_SAID = 20  # lines said of one ref; the rest counted in one more
_FILE = re.compile(rf"(?:{re.escape(META_FILE)}|{ids.TURN_NAME}\.md|{ids.TURN_NAME}\.\d+\.[a-z0-9]{{1,10}})\Z")


class _Entry(Shape):
    """A file where a store keeps one of a conversation's: a plain file (no
    link, no tree, no submodule) at conversations/<c1>/<c2>/<id>/<file>, its
    size known (git names every entry it lists; the path is said as it is)."""

    def check(self, value):
        path = value["path"]
        parts = path.split("/")
        if len(parts) != 5 or parts[0] != "conversations" or not ids.ID_RE.fullmatch(parts[3]) \
                or "/".join(parts[1:3]) != ids.shard_of(parts[3]) or not _FILE.match(parts[4]):
            raise Misfit(f"{shown(path)}: not a file of a conversation")
        if value["kind"] != "blob" or value["mode"] != "100644" or not isinstance(value["size"], int):
            raise Misfit(f"{shown(path)}: not a plain file")
        return value


def shown(path: str) -> str:
    """A path as one line says it: what is no printable character written as an escape (a newline as \\n)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in path)[:300]


def checked(ref: str, entries: list, blobs: Callable[[list[str]], dict[str, bytes]]
            ) -> tuple[dict[str, dict[str, bytes]], list[str]]:
    """The conversations of ``ref`` that may come in (id -> file name -> bytes),
    from ``entries`` (its tree as git lists it: path, kind, mode, size, sha),
    and the lines saying what was left out (at most MOST_SAID, then a count).
    Only refs named as conv names them come here (store/repo/side_refs.py lists no other)."""
    records = [{"path": e.path, "kind": e.kind, "mode": e.mode, "size": e.size, "sha": e.sha} for e in entries]
    kept, misfits = fitting(records, _Entry())
    said, odd = [], [f"{why}; left out" for why in misfits]  # files that are none of a conversation's: said last
    wanted, room = [], MOST_IN_ALL
    for r in sorted(kept, key=lambda r: r["size"]):
        if r["size"] > min(MOST_BYTES, room):
            said.append(f"{shown(r['path'])}: {r['size']:,} bytes, more than " + (
                "a conversation's file" if r["size"] > MOST_BYTES else "one import takes of a ref") + "; left out")
        else:
            wanted.append(r)
            room -= r["size"]
    data = blobs([r["sha"] for r in wanted])
    folders: dict[str, dict[str, bytes]] = {}
    for r in sorted(wanted, key=lambda r: r["path"]):
        conv_id, file = r["path"].split("/")[3:]
        content = data.get(r["sha"])
        why = "not in the repository" if content is None else _unfit(conv_id, file, content)
        if why:
            said.append(f"{shown(r['path'])}: {why}; left out")
        else:
            folders.setdefault(conv_id, {})[file] = content
    said += _whole(folders) + odd
    more = f"{ref}: and {len(said) - MOST_SAID} more things left out" if len(said) > MOST_SAID else None
    return folders, [f"{ref}: {line}" for line in said[:MOST_SAID]] + ([more] if more else [])


def _whole(folders: dict[str, dict[str, bytes]]) -> list[str]:
    """Each conversation as conv writes one: its conversation.md, a turn at
    least, and every file its turns say they were sent with (a turn naming
    one that is not there is left out); said for what is not."""
    said = []
    for conv_id, files in list(folders.items()):
        for name in [n for n in files if n.endswith(".md") and n != META_FILE]:
            listed = Turn.from_text(name[:-3], files[name].decode()).files or []
            missing = [str(f.get("file"))[:80] for f in listed if f.get("file") not in files]
            if missing:
                del files[name]
                said.append(f"conversation {conv_id}'s turn {name[:-3]} names a file it does not hold "
                            f"({missing[0]}); left out")
        if META_FILE not in files or len(files) == 1:
            del folders[conv_id]
            said.append(f"conversation {conv_id} has " + ("no readable conversation.md" if META_FILE not in files
                                                          else "no turn that could come in") + "; left out")
    return said


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
    what = key_shaped(text)
    return f"holds what looks like {what} (CONV_ALLOW_SECRETS=1 brings it in)" if what else None
