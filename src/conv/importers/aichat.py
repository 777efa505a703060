"""Reader for aichat's sessions: one YAML file a session (``NAME.yaml``) in
its sessions folder (``AICHAT_SESSIONS_DIR``, else ``sessions`` in its
config folder: ``AICHAT_CONFIG_DIR``, ``$XDG_CONFIG_HOME/aichat``, or the
system's config folder), as aichat's ``Session`` serializes it: ``model``,
``messages`` (role and content: a text, a list of text and ``image_url``
parts, or for a ``tool`` message the calls made and their output) and, once
a long session was compressed, the older messages in
``compressed_messages`` (then the first of ``messages`` is the summary
aichat wrote for the model: left out, the messages it summed up are there).

aichat keeps no times and no message ids: the turns are dated by the file's
last change and matched by text on a second import, as shell-gpt's are
(``importers.continue_stored``). An image sent inline (a ``data:`` URL) is
kept as a file of the question."""

from __future__ import annotations

import base64
import os
import sys
from pathlib import Path

from . import ImportedConversation, ImportedTurn, dated_by_file, files_at, first_question, parsed_file, unreadable
from .agent import AgentTurns

HINT = "aichat keeps its sessions in ~/.config/aichat/sessions (aichat --list-sessions names them)"
KEEPS_NO_IDS = True  # matched by text on a second import (importers.continue_stored)
_IMAGE_TYPES = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


def default_path() -> Path:
    if os.environ.get("AICHAT_SESSIONS_DIR"):
        return Path(os.environ["AICHAT_SESSIONS_DIR"]).expanduser()
    if os.environ.get("AICHAT_CONFIG_DIR"):
        config = Path(os.environ["AICHAT_CONFIG_DIR"]).expanduser()
    elif os.environ.get("XDG_CONFIG_HOME"):
        config = Path(os.environ["XDG_CONFIG_HOME"]) / "aichat"
    elif sys.platform == "darwin":
        config = Path("~/Library/Application Support/aichat").expanduser()
    else:
        config = Path("~/.config/aichat").expanduser()
    return config / "sessions"


def session_files(path: Path) -> list[Path]:
    """The session named, or every session in the folder."""
    return files_at(path, "*.yaml", HINT)


def session(file: Path) -> list[ImportedConversation]:
    data = parsed_file(file, _yaml, HINT)
    if not isinstance(data, dict):
        return [unreadable("aichat", file, "not an aichat session (half-written?), left out")]
    model = data.get("model") if isinstance(data.get("model"), str) else None
    older, recent = _messages(data.get("compressed_messages")), _messages(data.get("messages"))
    if older and recent and recent[0].get("role") == "system":
        recent = recent[1:]  # the summary aichat wrote of ``older`` for the model
    turns, system = AgentTurns(), []
    for n, m in enumerate(older + recent):
        role, content, source_id = m.get("role"), m.get("content"), str(n)
        if role == "system" and not turns.turns and isinstance(content, str):
            system.append(ImportedTurn("system", content, "", source_id=source_id))
        elif role == "user":
            text, files = _said(content)
            turns.typed(text, "", source_id)
            turns.turns[-1].files = files
        elif role == "tool" and isinstance(content, dict):
            for result in content.get("tool_results") or ():
                call = result.get("call") if isinstance(result, dict) else None
                if isinstance(call, dict):
                    call_id = str(call.get("id") or f"{n}-{call.get('name')}")
                    turns.called(call_id, str(call.get("name") or ""), call.get("arguments"), "", source_id)
                    output = result.get("output")
                    turns.result(call_id, output if isinstance(output, str) else _json(output), False, "", source_id)
        elif role == "assistant" and isinstance(content, str):
            if model:
                turns.answered_by(model, "", source_id)
            turns.said(content, "", source_id)
    found = system + turns.done()
    if not any(t.role == "user" for t in found):
        return []
    dated_by_file(found, file)
    return [ImportedConversation(source="aichat", source_id=file.stem, title=first_question(found),
                                 created=found[0].created, model=model, turns=found)]


def _yaml(raw: bytes):
    from ruamel.yaml import YAML, YAMLError

    try:
        return YAML(typ="safe").load(raw)
    except YAMLError as exc:
        raise ValueError(exc) from None


def _messages(value) -> list[dict]:
    return [m for m in value if isinstance(m, dict)] if isinstance(value, list) else []


def _said(content) -> tuple[str, list]:
    """A question's text, and the images sent inline with it as (name, bytes)."""
    if isinstance(content, str):
        return content, []
    texts, files = [], []
    for part in content if isinstance(content, list) else ():
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text":
            texts.append(str(part.get("text") or ""))
        elif part.get("type") == "image_url":
            url = str((part.get("image_url") or {}).get("url") or "")
            kind, _, data = url.removeprefix("data:").partition(";base64,")
            try:
                image = (base64.b64decode(data, validate=True) if url.startswith("data:") and kind in _IMAGE_TYPES
                         else None)
            except ValueError:
                image = None
            if image:
                files.append((f"image-{len(files) + 1}.{_IMAGE_TYPES[kind]}", image))
            else:
                texts.append(f"[image: {url[:200]}]")
    return " ".join(t for t in texts if t), files


def _json(value) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)
