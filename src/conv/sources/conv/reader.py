"""Reader for conv's own JSON export (``conv export --format json``): one
conversation, or a list of them, with the files sent with its turns (their
bytes in base64), so a conversation goes from one store to another, files
and all, without a shared remote. It is conv's way to move conversations
between stores, so nothing is lost on the way: the conversation keeps its id,
its turns their names, and both every field conv keeps (tags, status,
summary, agent, the conversation a fork came from, where an import came
from, the project it was asked in)."""

from __future__ import annotations

import base64
import binascii
from pathlib import Path

from ...format import ids
from ...format.model import ROLES, STATUSES
from ...format.naming import is_tag
from ...home.values import agent_name
from ...importers import ImportedConversation, ImportedTurn
from ...importers.boundary import Loaded, Reader, one_line
from ...importers.files import json_document
from ...importers.shape import Anything, Flag, ListOf, MapOf, Maybe, Misfit, Number, Record, Shape, Text, Time
from . import SOURCE


class _Role(Shape):
    def check(self, value):
        if value not in ROLES:
            raise Misfit(f"{str(value)[:20]!r} is no role ({', '.join(ROLES)})")
        return value


class _Base64(Shape):
    def check(self, value):
        try:
            return base64.b64decode(Text.check(value), validate=True)
        except (binascii.Error, ValueError):
            raise Misfit("not base64") from None


_SCALARS = MapOf(Maybe(Text))  # a mapping of text values (imported_from, project, forked_from)
_FILE = Record({"name": Text, "file": Text, "type": Text, "sent": Flag, "data_base64": _Base64()},
               required=("data_base64",))
_TURN = Record({"name": Text, "role": _Role(), "content": Text, "created": Time, "parent": Text, "model": Text,
                "provider": Text, "usage": MapOf(Maybe(Number)), "finish": Text, "error": Text, "replaces": Text,
                "hint": Text, "feedback": Text, "edited": Text, "options": MapOf(Anything), "thinking": Text,
                "files": ListOf(_FILE)}, required=("role", "content"))
_KEPT = ("parent", "provider", "finish", "error", "replaces", "hint", "feedback", "edited", "options")


class Conv(Reader):
    hint = "Give a file written by conv export --format json"
    unasked_too = True  # conv's own: a fork of a system prompt alone is a conversation
    per_session = False
    pattern = "*.json"
    record = Record({"id": Text, "title": Text, "created": Time, "model": Text, "provider": Text, "agent": Text,
                     "tags": ListOf(Text), "status": Text, "forked_from": _SCALARS, "summary": Text,
                     "imported_from": _SCALARS, "system_hash": Text, "context_summary": _SCALARS,
                     "project": _SCALARS, "notes": Text, "turns": ListOf(_TURN)}, required=("id", "turns"))

    def load(self, file: Path) -> Loaded:
        data = json_document(file)
        return Loaded(data if isinstance(data, list) else [data])

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        return [_conversation(item) for item in loaded.records]


READER = Conv(SOURCE)


def _conversation(item: dict) -> ImportedConversation:
    own = item["id"] if ids.ID_RE.match(item["id"]) else None  # an id conv did not make: one is made
    names = [t["name"] for t in item["turns"]]
    keep_names = all(n and ids.TURN_RE.match(n) and n.endswith(f"-{t['role']}")
                     for n, t in zip(names, item["turns"])) and len(set(names)) == len(names)
    turns = [_turn(t, keep_names) for t in item["turns"]]
    meta = {k: item[k] for k in ("summary", "forked_from", "system_hash", "context_summary", "project", "notes",
                                 "provider") if item[k]}
    tags = [t for t in item["tags"] or () if is_tag(t)]  # as conv tag takes them: one word each
    if tags:
        meta["tags"] = tags
    if item["agent"] and _agent(item["agent"]):
        meta["agent"] = item["agent"]
    if item["status"] in STATUSES:
        meta["status"] = item["status"]
    meta["imported_from"] = item["imported_from"]  # kept as it is, none included: it was asked in conv
    return ImportedConversation(
        source="conv", source_id=item["id"], title=item["title"] or "", created=item["created"],
        model=item["model"], turns=turns, conv_id=own, meta=meta)


def _agent(name: str) -> bool:
    try:
        agent_name(name)
    except ValueError:
        return False
    return True


def _turn(t: dict, keep_name: bool) -> ImportedTurn:
    files, kept = [], []
    for f in t["files"] or ():
        name = one_line(f["name"] or f["file"]) or "file"  # said on one line
        (kept if f["sent"] is False else files).append((name, f["data_base64"]))
    return ImportedTurn(t["role"], t["content"], t["created"], model=t["model"], usage=t["usage"],
                        source_id=t["name"] or "", files=files, kept=kept, thinking=t["thinking"],
                        name=t["name"] if keep_name else None,
                        extra={k: t[k] for k in _KEPT if t[k] is not None})
