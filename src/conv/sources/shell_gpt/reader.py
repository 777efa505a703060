"""Reader for shell-gpt's chats (``sgpt --chat NAME``, ``--repl NAME``): one
file a chat, named by it, in ``CHAT_CACHE_PATH`` (``/tmp/chat_cache`` unless
the environment or ``~/.config/shell_gpt/.sgptrc`` says otherwise), holding
the JSON list of messages sent: the role's system message first, then the
questions and answers, the oldest dropped past ``CHAT_CACHE_LENGTH`` (100).
A function call is an assistant message with ``tool_calls`` and a ``tool``
message with the result, before the answer that told of it.

shell-gpt keeps no ids and no times: the turns are dated by the file's last
change (boundary.dated), and a chat that grew is matched against what was
imported before by its text (by_text.continue_stored), so only its new
turns are added."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ...importers import ImportedConversation, ImportedTurn
from ...importers.agent import AgentTurns
from ...importers.boundary import Loaded, Reader
from ...importers.files import Unreadable, json_document
from ...importers.shape import Anything, ListOf, Record, Text
from . import SOURCE

CONFIG = Path("~/.config/shell_gpt/.sgptrc")
_CALL = Record({"id": Text, "function": Record({"name": Text, "arguments": Anything})})


class ShellGpt(Reader):
    hint = "shell-gpt keeps its chats in CHAT_CACHE_PATH (sgpt --list-chats names them)"
    keeps_no_ids = True  # matched by text on a second import (by_text.continue_stored)
    record = Record({"role": Text, "content": Text, "tool_calls": ListOf(_CALL, drop=True), "tool_call_id": Text},
                    required=("role",))

    def default_path(self) -> Path:
        """Where shell-gpt writes its chats here, found as shell-gpt finds it."""
        if os.environ.get("CHAT_CACHE_PATH"):
            return Path(os.environ["CHAT_CACHE_PATH"]).expanduser()
        try:
            for line in CONFIG.expanduser().read_text(encoding="utf-8").splitlines():
                key, _, value = line.strip().partition("=")
                if key == "CHAT_CACHE_PATH" and value:
                    return Path(value).expanduser()
        except (OSError, UnicodeDecodeError):
            pass
        return Path(tempfile.gettempdir()) / "chat_cache"

    def load(self, file: Path) -> Loaded:
        messages = json_document(file)
        if not isinstance(messages, list):
            raise Unreadable("not a chat of shell-gpt's (a JSON list of messages)")
        return Loaded(messages)

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        turns, system = AgentTurns(), []
        for n, m in enumerate(loaded.records):
            role, text, source_id = m["role"], m["content"] or "", str(n)
            if role == "system" and text:
                system.append(ImportedTurn("system", text, None, source_id=source_id))
            elif role == "user" and text.strip():
                turns.typed(text, None, source_id)
            elif role == "assistant":
                for call in m["tool_calls"] or ():
                    function = call["function"] or {}
                    turns.called(call["id"] or "", function.get("name") or "", function.get("arguments"), None,
                                 source_id)
                turns.said(text, None, source_id)
            elif role == "tool":
                turns.result(m["tool_call_id"] or "", text, False, None, source_id)
        found = system + turns.done()
        if not any(t.role != "system" for t in found):
            return []
        return [ImportedConversation(source=self.source, source_id=file.name, title="", created=None, model=None,
                                     turns=found)]


READER = ShellGpt(SOURCE)
