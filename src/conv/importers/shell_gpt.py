"""Reader for shell-gpt's chats (``sgpt --chat NAME``, ``--repl NAME``): one
file a chat, named by it, in ``CHAT_CACHE_PATH`` (``/tmp/chat_cache`` unless
the environment or ``~/.config/shell_gpt/.sgptrc`` says otherwise), holding
the JSON list of messages sent: the role's system message first, then the
questions and answers, the oldest dropped past ``CHAT_CACHE_LENGTH`` (100).
A function call is an assistant message with ``tool_calls`` and a ``tool``
message with the result, before the answer that told of it.

shell-gpt keeps no ids and no times: the turns are dated by the file's last
change, and a chat that grew is matched against what was imported before by
its text (``importers.continue_stored``), so only its new turns are added."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from . import ImportedConversation, ImportedTurn, dated_by_file, files_at, first_question, parsed_file, unreadable
from .agent import AgentTurns

HINT = "shell-gpt keeps its chats in CHAT_CACHE_PATH (sgpt --list-chats names them)"
CONFIG = Path("~/.config/shell_gpt/.sgptrc")
KEEPS_NO_IDS = True  # matched by text on a second import (importers.continue_stored)


def default_path() -> Path:
    """Where shell-gpt writes its chats here, found as shell-gpt finds it."""
    if os.environ.get("CHAT_CACHE_PATH"):
        return Path(os.environ["CHAT_CACHE_PATH"]).expanduser()
    try:
        for line in CONFIG.expanduser().read_text(encoding="utf-8").splitlines():
            key, _, value = line.strip().partition("=")
            if key == "CHAT_CACHE_PATH" and value:
                return Path(value).expanduser()
    except OSError:
        pass
    return Path(tempfile.gettempdir()) / "chat_cache"


def session_files(path: Path) -> list[Path]:
    """The chat named, or every chat in the folder."""
    return files_at(path, "*", HINT)


def session(file: Path) -> list[ImportedConversation]:
    import json

    messages = parsed_file(file, lambda raw: json.loads(raw.decode("utf-8", "replace")), HINT)
    if not isinstance(messages, list):
        return [unreadable("shell-gpt", file, "not a JSON list (half-written?), left out")]
    messages = [m for m in messages if isinstance(m, dict)]
    turns, system = AgentTurns(), []
    for n, m in enumerate(messages):
        role, content, source_id = m.get("role"), m.get("content"), str(n)
        text = content if isinstance(content, str) else ""
        if role == "system" and text:
            system.append(ImportedTurn("system", text, "", source_id=source_id))
        elif role == "user" and text.strip():
            turns.typed(text, "", source_id)
        elif role == "assistant":
            for call in m.get("tool_calls") or ():
                function = call.get("function") if isinstance(call, dict) else None
                if isinstance(function, dict):
                    turns.called(str(call.get("id")), str(function.get("name") or ""), function.get("arguments"),
                                 "", source_id)
            turns.said(text, "", source_id)
        elif role == "tool":
            turns.result(str(m.get("tool_call_id")), text, False, "", source_id)
    found = system + turns.done()
    if not any(t.role != "system" for t in found):
        return []
    dated_by_file(found, file)
    return [ImportedConversation(source="shell-gpt", source_id=file.name, title=first_question(found),
                                 created=found[0].created, model=None, turns=found)]
