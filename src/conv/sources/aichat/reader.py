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
(by_text.continue_stored). An image sent inline (a ``data:`` URL) is kept as
a file of the question. A session using YAML aliases is not read
(files.yaml_document): aichat never writes them, and they can expand without end."""

from __future__ import annotations

import base64
import json
import os
import sys
from pathlib import Path

from ...importers import ImportedConversation, ImportedTurn
from ...importers.agent import AgentTurns
from ...importers.boundary import Loaded, Reader
from ...importers.files import Unreadable, yaml_document
from ...importers.shape import Anything, ListOf, OneOf, Record, Text
from . import SOURCE

_IMAGE_TYPES = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}
_PART = Record({"type": Text, "text": Text, "image_url": Record({"url": Text})})
_RESULT = Record({"call": Record({"id": Text, "name": Text, "arguments": Anything}), "output": Anything})
_CONTENT = OneOf(Text, ListOf(_PART, drop=True), Record({"tool_results": ListOf(_RESULT, drop=True)}),
                 what="text, parts or tool results")


class Aichat(Reader):
    hint = "aichat keeps its sessions in ~/.config/aichat/sessions (aichat --list-sessions names them)"
    keeps_no_ids = True  # matched by text on a second import (by_text.continue_stored)
    pattern = "*.yaml"
    record = Record({"role": Text, "content": _CONTENT}, required=("role",))

    def default_path(self) -> Path:
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

    def load(self, file: Path) -> Loaded:
        data = yaml_document(file)
        if not isinstance(data, dict):
            raise Unreadable("not a session of aichat's (a YAML mapping)")
        older, recent = _messages(data.get("compressed_messages")), _messages(data.get("messages"))
        if older and recent and isinstance(recent[0], dict) and recent[0].get("role") == "system":
            recent = recent[1:]  # the summary aichat wrote of ``older`` for the model
        model = data.get("model")
        return Loaded(older + recent, {"model": model if isinstance(model, str) else None})

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        model = loaded.head["model"]
        turns, system = AgentTurns(), []
        for n, m in enumerate(loaded.records):
            role, content, source_id = m["role"], m["content"], str(n)
            if role == "system" and not turns.turns and isinstance(content, str):
                system.append(ImportedTurn("system", content, None, source_id=source_id))
            elif role == "user" and content is not None and not isinstance(content, dict):
                text, files = _said(content)
                turns.typed(text, None, source_id)
                turns.turns[-1].files = files
            elif role == "tool" and isinstance(content, dict):
                for result in content["tool_results"] or ():
                    call = result["call"]
                    if call:
                        call_id = call["id"] or f"{n}-{call['name']}"
                        turns.called(call_id, call["name"] or "", call["arguments"], None, source_id)
                        output = result["output"]
                        turns.result(call_id, output if isinstance(output, str) else json.dumps(output),
                                     False, None, source_id)
            elif role == "assistant" and isinstance(content, str):
                if model:
                    turns.answered_by(model, None, source_id)
                turns.said(content, None, source_id)
        found = system + turns.done()
        if not any(t.role == "user" for t in found):
            return []
        return [ImportedConversation(source=self.source, source_id=file.stem, title="", created=None, model=model,
                                     turns=found)]


READER = Aichat(SOURCE)


def _messages(value) -> list:
    return list(value) if isinstance(value, list) else []


def _said(content) -> tuple[str, list]:
    """A question's text, and the images sent inline with it as (name, bytes)."""
    if isinstance(content, str):
        return content, []
    texts, files = [], []
    for part in content:
        if part["type"] == "text":
            texts.append(part["text"] or "")
        elif part["type"] == "image_url":
            url = (part["image_url"] or {}).get("url") or ""
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
