"""Cursor's two databases (reader.py says what each holds): the CLI's
store.db, whose messages are read in the order its tree lists them, and the
editor's state.vscdb, whose chats are read with their bubbles in the order
each chat's headers list them."""

from __future__ import annotations

import json
from pathlib import Path

from ...importers import ImportedConversation
from ...importers.agent import AgentTurns
from ...importers.boundary import Loaded
from ...importers.files import Unreadable, json_document, open_database


def store(file: Path) -> Loaded:
    """A CLI chat's store: its meta, and its messages in the order its root's tree lists them."""
    db = open_database(file)
    try:
        row = db.execute("select value from meta where key = '0'").fetchone()
        meta = json.loads(bytes.fromhex(row[0]).decode("utf-8", "replace")) if row and isinstance(row[0], str) else {}
        blobs = dict(db.execute("select id, data from blobs"))
    except (ValueError, RecursionError):
        raise Unreadable("its meta is not what Cursor writes (hex of a JSON object)") from None
    except Exception as exc:  # sqlite3's own errors: a database that is not Cursor's
        raise Unreadable(f"not a Cursor chat's store ({exc})") from None
    finally:
        db.close()
    where = json_document(file.with_name("meta.json")) if file.with_name("meta.json").is_file() else {}
    chat = {"kind": "chat", **(meta if isinstance(meta, dict) else {}),
            "cwd": where.get("cwd") if isinstance(where, dict) else None}
    root = meta.get("latestRootBlobId") if isinstance(meta, dict) else None
    return Loaded([chat, *({"kind": "leaf", **leaf} for leaf in _walked(blobs, root))])


def _walked(blobs: dict, root) -> list[dict]:
    """The messages of the tree at ``root``, in order (each blob visited once: a loop ends)."""
    out, stack, seen = [], [root], set()
    while stack:
        at = stack.pop()
        if not isinstance(at, str) or at in seen or at not in blobs:
            continue
        seen.add(at)
        data = blobs[at]
        leaf = _leaf(data)
        if leaf is not None:
            out.append(leaf)
            continue
        refs = _refs(data if isinstance(data, bytes) else b"")
        stack.extend(reversed(refs))
    return out


def _leaf(data) -> dict | None:
    """A message blob's JSON (plain, or a newer node's field 4 holding it); None for a tree's node."""
    text = data if isinstance(data, str) else data.decode("utf-8", "replace") if isinstance(data, bytes) else ""
    if text.lstrip().startswith("{"):
        try:
            found = json.loads(text)
        except (ValueError, RecursionError):
            return None
        return found if isinstance(found, dict) and "role" in found else None
    return None


def _refs(data: bytes) -> list[str]:
    """A tree node's references, in order: field 1 (a message) and field 2 (a subtree), each 32 bytes."""
    refs, at = [], 0
    while at + 34 <= len(data) and data[at] in (0x0A, 0x12) and data[at + 1] == 0x20:
        refs.append(data[at + 2:at + 34].hex())
        at += 34
    return refs


def composer_ids(state: Path) -> list[str]:
    try:
        db = open_database(state)
        try:
            return [key.split(":", 1)[1] for (key,) in
                    db.execute("select key from cursorDiskKV where key like 'composerData:%'")]
        finally:
            db.close()
    except Exception:  # noqa: BLE001 - not the editor's state: its chats are none
        return []


def state(file: Path) -> Loaded:
    """The editor's chats (composerData) and their messages (bubbleId), each a record."""
    db = open_database(file)
    try:
        rows = db.execute("select key, value from cursorDiskKV where key like 'composerData:%' "
                          "or key like 'bubbleId:%'").fetchall()
    except Exception as exc:  # noqa: BLE001 - sqlite3's own errors
        raise Unreadable(f"not Cursor's state database ({exc})") from None
    finally:
        db.close()
    records = []
    for key, value in rows:
        try:
            found = json.loads(value) if isinstance(value, (str, bytes)) else None
        except (ValueError, RecursionError):
            found = None
        if not isinstance(found, dict):
            records.append(found)  # not an object: left out, counted
        elif key.startswith("composerData:"):
            records.append({**found, "kind": "composer", "composerId": key.split(":", 1)[1]})
        else:
            _, composer, bubble = (key.split(":", 2) + ["", ""])[:3]
            records.append({**found, "kind": "bubble", "composer": composer, "bubbleId": bubble})
    return Loaded(records)


def composers(source: str, records: list[dict], tools) -> list[ImportedConversation]:
    """The editor's chats: each composer's bubbles in the order its headers list them."""
    bubbles = {(r["composer"], r["bubbleId"]): r for r in records if r["kind"] == "bubble"}
    out = []
    for chat in (r for r in records if r["kind"] == "composer"):
        turns = AgentTurns(tools)
        for header in chat["fullConversationHeadersOnly"] or ():
            bubble = bubbles.get((chat["composerId"], header["bubbleId"]))
            if bubble is not None:
                _bubble(turns, bubble)
        found = turns.done()
        if any(t.role == "user" for t in found):
            place = chat["workspaceIdentifier"] if isinstance(chat["workspaceIdentifier"], dict) else {}
            uri = place.get("uri") if isinstance(place.get("uri"), dict) else {}
            out.append(ImportedConversation(
                source=source, source_id=chat["composerId"], title=chat["name"] or "", created=chat["createdAt"],
                model=(chat["modelConfig"] or {}).get("modelName"), turns=found,
                origin={"cwd": uri.get("fsPath") if isinstance(uri.get("fsPath"), str) else None}))
    return out


def _bubble(turns: AgentTurns, b: dict) -> None:
    time, source_id = b["createdAt"], b["bubbleId"]
    if b["type"] == 1:
        if (b["text"] or "").strip():
            turns.typed(b["text"], time, source_id)
        return
    if (b["modelInfo"] or {}).get("modelName"):
        turns.answered_by(b["modelInfo"]["modelName"], time, source_id)
    if b["thinking"] and b["thinking"]["text"]:
        turns.thought(b["thinking"]["text"], time, source_id)
    turns.said(b["text"] or "", time, source_id)
    tool = b["toolFormerData"]
    if tool and tool["name"]:
        args = _json_or(tool["params"]) if tool["params"] is not None else _json_or(tool["rawArgs"])
        call = tool["toolCallId"] or source_id
        turns.called(call, tool["name"], args, time, source_id)
        if tool["result"] is not None:
            result = tool["result"] if isinstance(tool["result"], str) else json.dumps(tool["result"])
            turns.result(call, result, tool["status"] in ("error", "cancelled"), time, source_id)
    used = b["tokenCount"]
    if used and (used["inputTokens"] or used["outputTokens"]):
        turns.used({"prompt_tokens": used["inputTokens"] or 0, "completion_tokens": used["outputTokens"] or 0},
                   source_id, time, source_id)


def _json_or(value):
    """A tool's parameters, which Cursor keeps as JSON text (parsed), or as they are."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value
