"""Reader for conv's own JSON export (``conv export --format json``): one
conversation, or a list of them, with the files sent with its turns (their
bytes in base64), so a conversation goes from one store to another, files
and all, without a shared remote."""

from __future__ import annotations

import base64
import binascii
import json
from pathlib import Path

from ..errors import UsageError
from ..format.model import ROLES
from . import ImportedConversation, ImportedTurn, first_question, strictly_increasing

HINT = "Give a file written by conv export --format json"


def read(path: Path) -> list[ImportedConversation]:
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}", HINT) from None
    except (ValueError, IsADirectoryError) as exc:
        raise UsageError(f"{path} is not JSON ({exc})", HINT) from None
    items = data if isinstance(data, list) else [data]
    return [_conversation(item, path, n) for n, item in enumerate(items, 1)]


def _conversation(item, path: Path, n: int) -> ImportedConversation:
    where = f"{path}, conversation {n}"
    if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not isinstance(item.get("turns"), list):
        raise UsageError(f"{where}: not a conversation conv exported (no id or turns)", HINT)
    turns = [_turn(t, f"{where}, turn {k}") for k, t in enumerate(item["turns"], 1)]
    return ImportedConversation(
        source="conv", source_id=item["id"], title=str(item.get("title") or "") or first_question(turns),
        created=str(item.get("created") or (turns[0].created if turns else "")), model=item.get("model"),
        turns=strictly_increasing(turns))


def _turn(t, where: str) -> ImportedTurn:
    if not isinstance(t, dict) or t.get("role") not in ROLES or not isinstance(t.get("content"), str) \
            or not isinstance(t.get("created"), str):
        raise UsageError(f"{where}: needs a role ({', '.join(ROLES)}), a content and a created time", HINT)
    files = []
    for f in t.get("files") or ():
        try:
            files.append((str(f["name"]), base64.b64decode(f["data_base64"], validate=True)))
        except (KeyError, TypeError, binascii.Error):
            raise UsageError(f"{where}: a file without its bytes (data_base64)", HINT) from None
    usage = t.get("usage") if isinstance(t.get("usage"), dict) else None
    return ImportedTurn(t["role"], t["content"], t["created"], model=t.get("model"), usage=usage,
                        source_id=str(t.get("name") or ""), files=files)
