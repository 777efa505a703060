"""Reader for a ChatGPT data export (Settings → Data controls → Export).

``conversations.json`` is a list of conversations, each a tree: ``mapping``
holds nodes ``{id, parent, children, message}``. Editing a question or
regenerating an answer adds a sibling, so the tree has one leaf per branch.
The first branch is the conversation; every later one becomes a fork of it
(``fork_of``, ``fork_at``) named by where it branched off, so no answer is
lost, none is shown twice, and a later export (another branch current, a
branch gone on) lands on the same conversations (branches.py).

Only what the user saw is kept: user, assistant and system messages with
text. Tool messages, the assistant's calls to tools (``recipient`` other than
``all``), hidden messages (custom instructions, empty system prompts) and
non-text parts (images, files) are left out.

PATH may be ``conversations.json``, the unpacked export folder, or the zip.
Newer exports split the list into ``conversations-000.json``,
``conversations-001.json``…: in a folder or a zip, those parts are read in
order, as one list.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from ...errors import UsageError
from ...format.model import ROLES
from ...importers import ImportedConversation, ImportedTurn, shared_prefix
from ...importers.boundary import Loaded, Reader
from ...importers.branches import lines, said_of
from ...importers.files import MOST_BYTES, Unreadable, json_document, json_value
from ...importers.shape import Anything, Flag, ListOf, MapOf, Record, Text, Time
from . import SOURCE

_MESSAGE = Record({"id": Text, "author": Record({"role": Text}), "create_time": Time,
                   "content": Record({"parts": ListOf(Anything)}), "recipient": Text,
                   "metadata": Record({"model_slug": Text, "is_visually_hidden_from_conversation": Flag})})
_NODE = Record({"parent": Text, "children": ListOf(Text), "message": _MESSAGE})
_PART = re.compile(r"conversations-\d+\.json")


class ChatGPT(Reader):
    hint = "Give the conversations.json of a ChatGPT data export (or the export's zip or folder)"
    per_session = False
    record = Record({"id": Text, "conversation_id": Text, "title": Text, "create_time": Time, "update_time": Time,
                     "mapping": MapOf(_NODE), "default_model_slug": Text},
                    required=("mapping",))

    def files(self, path: Path) -> list[Path]:
        if not path.exists():
            raise UsageError(f"no such file or folder: {path}", self.hint)
        return [path]

    def load(self, file: Path) -> Loaded:
        items = []
        for where, data in _parts(file):
            if not isinstance(data, list):
                raise Unreadable(f"{where} is not a ChatGPT export: expected a list of conversations")
            items += data
        return Loaded(items)

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        out = []
        for n, item in enumerate(loaded.records, 1):
            cid = item["conversation_id"] or item["id"]
            if not cid:
                out.append(ImportedConversation(self.source, "", "", None, None,
                                                skipped=[f"conversation {n} of {file} has no id: left out"]))
                continue
            out += _conversation(cid, item)
        return out


READER = ChatGPT(SOURCE)


def _parts(path: Path) -> list[tuple[str, object]]:
    """(where, parsed JSON) of each file holding conversations."""
    if path.is_dir():
        names = _pick([p.name for p in path.iterdir()])
        if not names:
            raise Unreadable("it holds no conversations.json")
        return [(str(path / name), json_document(path / name)) for name in names]
    if not path.is_file():  # a FIFO would hang the zip test: no export
        raise Unreadable("not a regular file")
    if not zipfile.is_zipfile(path):
        return [(str(path), json_document(path))]
    try:
        with zipfile.ZipFile(path) as archive:
            names = _pick(archive.namelist())
            if not names:
                raise Unreadable("the zip holds no conversations.json")
            if any(archive.getinfo(name).file_size > MOST_BYTES for name in names):
                raise Unreadable("a file in the zip is larger than any export")
            return [(f"{path}:{name}", json_value(archive.read(name))) for name in names]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError) as exc:
        raise Unreadable(f"a damaged zip ({exc})") from None
    except RuntimeError as exc:  # zipfile's word for an encrypted member
        raise Unreadable(f"a zip conv cannot open ({exc}); unpack it and give conversations.json") from None


def _pick(names: list[str]) -> list[str]:
    """Of the files of an export, those holding its conversations: the parts of a
    split export in order, else conversations.json (the outermost, if several)."""
    def base(name: str) -> str:
        return name.rsplit("/", 1)[-1]

    parts = sorted((n for n in names if _PART.fullmatch(base(n))), key=lambda n: (n.count("/"), n))
    if parts:
        top = parts[0].count("/")
        return [n for n in parts if n.count("/") == top]
    whole = [n for n in names if base(n) == "conversations.json"]
    return [min(whole, key=len)] if whole else []


def _conversation(cid: str, item: dict) -> list[ImportedConversation]:
    """The first branch, then a fork for each later branch that adds turns (branches.py)."""
    mapping = item["mapping"]
    start = item["create_time"] or item["update_time"]
    listed = {child: key for key, node in mapping.items() for child in node["children"] or () if child != key}
    found = lines({key: node["parent"] if node["parent"] in mapping and node["parent"] != key else listed.get(key)
                   for key, node in mapping.items()}, list(mapping))
    branches = [(name, _turns(mapping, found.path(end))) for end, name in found.ends]
    main = branches[0][1] if branches else []
    model = item["default_model_slug"] or next((t.model for t in main if t.model), None)
    title = item["title"] or ""
    out = [ImportedConversation("chatgpt", cid, title, start, model, main)]
    out[0].skipped += said_of(found, f"conversation {cid}")
    seen = {tuple(t.source_id for t in main)}
    for name, turns in branches[1:]:
        key = tuple(t.source_id for t in turns)
        shared = shared_prefix(main, turns)
        if key in seen or shared == len(turns):
            continue  # a duplicate, or nothing of its own
        seen.add(key)
        out.append(ImportedConversation(
            "chatgpt", f"{cid}#{name}", title, start,
            next((t.model for t in turns[shared:] if t.model), model), turns, fork_of=cid, fork_at=shared))
    if not main:  # nothing visible on the first branch: keep the others on their own
        for branch in out[1:]:
            branch.fork_of = branch.fork_at = None
        return out[1:]
    return out


def _turns(mapping: dict, path: list[str]) -> list[ImportedTurn]:
    """The visible messages of a branch (a message without a time is dated by
    the ones around it, at the boundary)."""
    turns = []
    for node in path:
        message = mapping[node]["message"]
        turn = _turn(message, node) if message else None
        if turn:
            turns.append(turn)
    return turns


def _turn(message: dict, node: str) -> ImportedTurn | None:
    role = (message["author"] or {}).get("role") or ""
    metadata = message["metadata"] or {}
    if role not in ROLES or metadata.get("is_visually_hidden_from_conversation"):
        return None
    if message["recipient"] not in (None, "all"):
        return None  # the assistant calling a tool (browser, code, memory)
    parts = (message["content"] or {}).get("parts") or []
    text = "\n\n".join(p for p in parts if isinstance(p, str) and p)
    if not text.strip():
        return None
    model = metadata.get("model_slug") if role == "assistant" else None
    return ImportedTurn(role, text, message["create_time"], model=model, source_id=message["id"] or node)
