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
results do (agent.py). Its tools are called as fenced blocks in the answer
(```save PATH, ```append PATH, ```patch PATH with ORIGINAL/UPDATED blocks,
```shell): kept as the answer's edits and commands."""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path

from ...importers import ImportedConversation
from ...importers.agent import AgentTurns
from ...importers.boundary import Loaded, Reader
from ...importers.files import Unreadable, files_at, raw
from ...importers.shape import Flag, Record, Shape, Text, moment
from ...importers.tool_calls import Tools, appended, blocks, shell, write
from . import SOURCE

LOG = "conversation.jsonl"
CALL = re.compile(r"^```(save|append|patch|shell)(?:[ \t]+([^\n`]*))?\n(.*?)^```[ \t]*$", re.S | re.M)
TOOLS = Tools({"save": write("path", "text"), "append": appended("path", "text"), "patch": blocks("path", "text")},
              {"shell": shell("text")})


class _LocalTime(Shape):
    """gptme's time (``datetime.now().isoformat()``: local, no zone) as an aware
    datetime (a time without zone is taken as local); None when it is none."""

    def check(self, value):
        try:
            local = datetime.fromisoformat(value) if isinstance(value, str) else None
        except ValueError:
            return None
        try:
            return moment(local.astimezone()) if local is not None else None
        except (ValueError, OverflowError, OSError):  # a year no clock can place
            return None


class Gptme(Reader):
    hint = "gptme keeps its conversations in ~/.local/share/gptme/logs (gptme chats list names them)"
    record = Record({"role": Text, "content": Text, "timestamp": _LocalTime(), "hide": Flag,
                     "metadata": Record({"model": Text})}, required=("role", "content"))

    def default_path(self) -> Path:
        if os.environ.get("GPTME_LOGS_HOME"):
            return Path(os.environ["GPTME_LOGS_HOME"]).expanduser()
        if os.environ.get("XDG_DATA_HOME", "").startswith("/"):
            return Path(os.environ["XDG_DATA_HOME"]) / "gptme" / "logs"
        old = Path("~/.local/share/gptme").expanduser()
        if old.exists():
            return old / "logs"
        from platformdirs import user_data_dir

        return Path(user_data_dir("gptme")) / "logs"

    def files(self, path: Path) -> list[Path]:
        """The log named, a conversation's folder, or every conversation below the folder."""
        if path.is_dir() and (path / LOG).is_file():
            return [path / LOG]
        return files_at(path, f"*/{LOG}", self.hint)

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        turns, model = AgentTurns(TOOLS), None
        for n, r in enumerate(loaded.records):
            role, text, time, source_id = r["role"], r["content"], r["timestamp"], str(n)
            if r["hide"]:
                continue
            if role == "system" or (role == "user" and text.lstrip().startswith("<system>")):
                turns.noted(text, f"gptme: {role}", "gptme", time, source_id)
            elif role == "user" and text.strip():
                turns.typed(text, time, source_id)
            elif role == "assistant":
                model = (r["metadata"] or {}).get("model") or model
                if model:
                    turns.answered_by(model, time, source_id)
                turns.said(text, time, source_id)
                for tool, path, body in CALL.findall(text):  # its tools, called as fenced blocks
                    turns.acted(tool, {"path": path.strip(), "text": body}, time, source_id)
        found = turns.done()
        if not any(t.role == "user" for t in found):
            return []
        return [ImportedConversation(source=self.source, source_id=file.parent.name, title="",
                                     created=found[0].created, model=model, turns=found,
                                     origin={"cwd": _workspace(file.parent)})]


READER = Gptme(SOURCE)


def _workspace(folder: Path) -> str | None:
    """The workspace gptme ran in, from the conversation's config.toml (which writes the home folder as ~)."""
    import tomllib

    try:  # through raw(): a FIFO or a device is never waited on
        chat = tomllib.loads(raw(folder / "config.toml").decode("utf-8", "replace")).get("chat")
    except (Unreadable, ValueError, RecursionError):
        return None
    workspace = chat.get("workspace") if isinstance(chat, dict) else None
    return os.path.expanduser(workspace) if isinstance(workspace, str) else None
