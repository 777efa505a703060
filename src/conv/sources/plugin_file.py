"""The ``Settings`` of a tool whose hooks are code in its own process (an
opencode plugin, a pi extension): conv's hook is a file of conv's own in the
tool's plugin folder, a template that runs conv's capture line (``COMMAND``,
written as one line of JSON the file reads back) without waiting for it.
``conv connect --remove`` takes the file out; a file of that name that is not
conv's is left as it is."""

import json
from pathlib import Path

from ..connect import Unparsable
from ..connect.commands import capture_parts
from .contract import Settings

MARK = "const COMMAND = "  # the line holding conv's capture, as JSON


class PluginSettings(Settings):
    """``template``: the file's text, ``{command}`` where the JSON of conv's capture line goes."""

    template = ""

    def __init__(self, source, events: tuple):
        self.source, self.events = source, events

    def added(self, text: str | None, command: list[str], server: dict) -> str:
        if text is not None and text.strip() and not self.captures(text):
            raise Unparsable("a file of that name is there and it is not conv's: left as it is")
        return self.template.replace("{command}", json.dumps(command))

    def holds(self, text: str | None, command: list[str], server: dict) -> bool:
        return text == self.added(text, command, server)

    def removed(self, text: str) -> str:
        return "" if self.captures(text) else text

    def captures(self, text: str | None) -> list[list[str]]:
        for line in (text or "").splitlines():
            if line.startswith(MARK):
                try:
                    words = json.loads(line[len(MARK):].rstrip(";"))
                except ValueError:
                    return []
                ok = isinstance(words, list) and all(isinstance(w, str) for w in words)
                return [words] if ok and capture_parts(words, self.source.name) is not None else []
        return []

    def register(self, server: dict, project: Path | None) -> str:
        return ""

    def unregister(self, project: Path | None) -> str:
        return ""

    def mcp(self, project: Path | None, server: dict) -> str:
        return ""
