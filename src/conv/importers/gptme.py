"""Reader for gptme's conversations: a folder each under its logs folder
(``GPTME_LOGS_HOME``, else ``$XDG_DATA_HOME/gptme/logs``, else the data
folder platformdirs gives gptme), named by the conversation, holding
``conversation.jsonl`` (one message a line: role, content, a local time
without zone, and for answers ``metadata.model``) and ``config.toml`` (the
workspace it ran in).

gptme's own prompt and context are hidden system messages: left out, as
Codex's are. What gptme adds while it works (a tool's output as a system
message, its ``<system>`` nudges sent as user messages) is not the user
typing: it goes into the answer as a fenced block, as an agent's tool
results do (agent.py)."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

from ..format.model import iso
from . import ImportedConversation, agent, files_at, first_question, strictly_increasing
from .agent import AgentTurns

HINT = "gptme keeps its conversations in ~/.local/share/gptme/logs (gptme chats list names them)"
LOG = "conversation.jsonl"


def default_path() -> Path:
    if os.environ.get("GPTME_LOGS_HOME"):
        return Path(os.environ["GPTME_LOGS_HOME"]).expanduser()
    if os.environ.get("XDG_DATA_HOME", "").startswith("/"):
        return Path(os.environ["XDG_DATA_HOME"]) / "gptme" / "logs"
    old = Path("~/.local/share/gptme").expanduser()
    if old.exists():
        return old / "logs"
    from platformdirs import user_data_dir

    return Path(user_data_dir("gptme")) / "logs"


def session_files(path: Path) -> list[Path]:
    """The log named, a conversation's folder, or every conversation below the folder."""
    if path.is_dir() and (path / LOG).is_file():
        return [path / LOG]
    return files_at(path, f"*/{LOG}", HINT)


def session(file: Path) -> list[ImportedConversation]:
    records, skipped = agent.records(file, HINT)
    turns, model = AgentTurns(), None
    for n, r in enumerate(records):
        role, text, source_id = r.get("role"), r.get("content"), str(n)
        time = _utc(r.get("timestamp"))
        if not isinstance(text, str) or time is None or r.get("hide"):
            continue
        metadata = r.get("metadata") if isinstance(r.get("metadata"), dict) else {}
        if role == "system" or (role == "user" and text.lstrip().startswith("<system>")):
            turns.noted(text, f"gptme: {role}", "gptme", time, source_id)
        elif role == "user" and text.strip():
            turns.typed(text, time, source_id)
        elif role == "assistant":
            model = metadata.get("model") or model
            if model:
                turns.answered_by(model, time, source_id)
            turns.said(text, time, source_id)
    found = strictly_increasing(turns.done())
    if not any(t.role == "user" for t in found):
        return []
    origin = {"cwd": cwd} if (cwd := _workspace(file.parent)) else {}
    return [ImportedConversation(source="gptme", source_id=file.parent.name, title=first_question(found),
                                 created=found[0].created, model=model, turns=found, origin=origin,
                                 skipped=skipped)]


def _utc(stamp) -> str | None:
    """gptme's time (``datetime.now().isoformat()``: local, no zone) in UTC."""
    try:
        moment = datetime.fromisoformat(str(stamp))
    except ValueError:
        return None
    return iso(moment.astimezone(timezone.utc))  # a time without zone is taken as local


def _workspace(folder: Path) -> str | None:
    """The workspace gptme ran in, from the conversation's config.toml (which writes the home folder as ~)."""
    import tomllib

    try:
        chat = tomllib.loads((folder / "config.toml").read_text(encoding="utf-8")).get("chat")
    except (OSError, ValueError):
        return None
    workspace = chat.get("workspace") if isinstance(chat, dict) else None
    return os.path.expanduser(workspace) if isinstance(workspace, str) else None
