"""Reader for a ChatGPT data export (Settings → Data controls → Export).

``conversations.json`` is a list of conversations, each a tree: ``mapping``
holds nodes ``{id, parent, children, message}`` and ``current_node`` is the
leaf the user last saw. Editing a question or regenerating an answer adds a
sibling, so the tree has one leaf per branch. The path to ``current_node`` is
the conversation; every other leaf's path becomes a fork of it (``fork_of``,
``fork_at``), so no answer is lost and none is shown twice.

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

import json
import re
import zipfile
from pathlib import Path

from ..errors import UsageError
from ..format.model import ROLES
from . import (
    ImportedConversation,
    ImportedTurn,
    first_question,
    from_epoch,
    shared_prefix,
    strictly_increasing,
)

HINT = "Give the conversations.json of a ChatGPT data export (or the export's zip or folder)"


def read(path: Path) -> list[ImportedConversation]:
    found: list[ImportedConversation] = []
    for where, data in _load(path):
        if not isinstance(data, list):
            raise UsageError(f"{where} is not a ChatGPT export: expected a list of conversations", HINT)
        for index, item in enumerate(data):
            found.extend(_conversation(item, f"{where}: conversation {index + 1}"))
    return found


_PART = re.compile(r"conversations-\d+\.json")


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


def _load(path: Path) -> list[tuple[str, object]]:
    """(where, parsed JSON) of each file holding conversations."""
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = _pick(archive.namelist())
                if not names:
                    raise UsageError(f"{path} holds no conversations.json", HINT)
                return [(f"{path}:{name}", json.loads(archive.read(name))) for name in names]
        if path.is_dir():
            names = _pick([p.name for p in path.iterdir()])
            if not names:
                raise UsageError(f"cannot read {path}: it holds no conversations.json", HINT)
            return [(str(path / name), json.loads((path / name).read_bytes())) for name in names]
        return [(str(path), json.loads(path.read_bytes()))]
    except OSError as e:
        raise UsageError(f"cannot read {path} ({e.strerror or e})", HINT) from None
    except zipfile.BadZipFile as e:
        raise UsageError(f"{path} is a damaged zip ({e})", HINT) from None
    except ValueError as e:
        raise UsageError(f"{path} is not valid JSON ({e})", HINT) from None


def _conversation(item, where: str) -> list[ImportedConversation]:
    """The main branch, then one fork per other branch that adds turns."""
    if not isinstance(item, dict) or not isinstance(item.get("mapping"), dict):
        raise UsageError(f"{where} has no mapping of messages", HINT)
    cid = str(item.get("conversation_id") or item.get("id") or "")
    if not cid:
        raise UsageError(f"{where} has no id", HINT)
    mapping = {k: v for k, v in item["mapping"].items() if isinstance(v, dict)}
    start = _epoch(item.get("create_time")) or _epoch(item.get("update_time")) or 0.0
    leaves = [k for k, node in mapping.items() if not node.get("children")]
    current = item.get("current_node")
    if current not in mapping:
        current = leaves[-1] if leaves else None
    main = _turns(mapping, current, start)
    title = str(item.get("title") or "") or first_question(main)
    model = item.get("default_model_slug") or next((t.model for t in main if t.model), None)
    out = [ImportedConversation("chatgpt", cid, title, from_epoch(start), model, main)]
    seen = {tuple(t.source_id for t in main)}
    for leaf in leaves:
        turns = _turns(mapping, leaf, start)
        key = tuple(t.source_id for t in turns)
        shared = shared_prefix(main, turns)
        if leaf == current or key in seen or shared == len(turns):
            continue  # the main branch, a duplicate, or nothing of its own
        seen.add(key)
        out.append(ImportedConversation(
            "chatgpt", f"{cid}#{leaf}", title, out[0].created,
            next((t.model for t in turns[shared:] if t.model), model), turns,
            fork_of=cid, fork_at=shared))
    if not main:  # nothing visible on the current branch: keep the others on their own
        for branch in out[1:]:
            branch.fork_of = branch.fork_at = None
        return out[1:]
    return out


def _turns(mapping: dict, leaf: str | None, start: float) -> list[ImportedTurn]:
    """The visible messages from the root to ``leaf``; a message without a
    time takes the one before it (the conversation's start at first)."""
    path, node, seen = [], leaf, set()
    while node in mapping and node not in seen:
        seen.add(node)
        path.append(node)
        node = mapping[node].get("parent")
    turns, last = [], start
    for node in reversed(path):
        message = mapping[node].get("message")
        if not isinstance(message, dict):
            continue
        last = _epoch(message.get("create_time")) or last
        turn = _turn(message, node, last)
        if turn:
            turns.append(turn)
    return strictly_increasing(turns)


def _turn(message: dict, node: str, when: float) -> ImportedTurn | None:
    role = str((message.get("author") or {}).get("role") or "")
    metadata = message.get("metadata") or {}
    if role not in ROLES or metadata.get("is_visually_hidden_from_conversation"):
        return None
    if message.get("recipient") not in (None, "all"):
        return None  # the assistant calling a tool (browser, code, memory)
    parts = (message.get("content") or {}).get("parts")
    texts = [p for p in parts if isinstance(p, str) and p] if isinstance(parts, list) else []
    text = "\n\n".join(texts)
    if not text.strip():
        return None
    model = metadata.get("model_slug") if role == "assistant" else None
    return ImportedTurn(role, text, from_epoch(when), model=model,
                        source_id=str(message.get("id") or node))


def _epoch(value) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None

