"""Cline: conv's hook is a file of conv's own in its hooks folder,
``~/.cline/hooks/TaskComplete.sh`` (a project's ``.clinerules/hooks/``),
which Cline runs after each completed turn with a JSON object on stdin
naming the session (read from Cline's code and the CLI 3.0.65: a file named
after the event, any case, run by its shebang; every such file runs, so a
hook of the user's of the same event runs too). Its MCP servers are kept in
Cline's own settings, which conv does not write: ``conv mcp`` is said, to add."""

import shlex
from pathlib import Path

from ...connect import Unparsable
from ...connect.commands import capture_parts
from ..contract import Settings
from . import SOURCE, home

HOOK_FILE = "TaskComplete.sh"
HEAD = "#!/bin/sh\n# conv's capture of each Cline turn: conv connect cline --remove takes this file out\n"


class ClineSettings(Settings):
    program = "cline"
    events = ("TaskComplete",)
    executable = True  # "executable shell scripts", as Cline's docs have them

    def settings_file(self, project: Path | None) -> Path:
        return (project / ".clinerules" if project is not None else self.installed()) / "hooks" / HOOK_FILE

    def installed(self) -> Path:
        """The tool's own folder (conv's hook goes in a folder the tool does not make)."""
        return home()

    def added(self, text: str | None, command: list[str], server: dict) -> str:
        if text is not None and not self.captures(text) and text.strip():
            raise Unparsable(f"a {HOOK_FILE} of yours is there: conv writes its hook as {HOOK_FILE}, a file of its "
                             "own (rename yours: Cline runs every TaskComplete file)")
        return f"{HEAD}exec {shlex.join(command)}\n"

    def holds(self, text: str | None, command: list[str], server: dict) -> bool:
        return text == self.added(text, command, server)

    def removed(self, text: str) -> str:
        return "" if self.captures(text) else text

    def captures(self, text: str | None) -> list[list[str]]:
        for line in (text or "").splitlines():
            if line.startswith("exec "):
                try:
                    words = shlex.split(line[len("exec "):])
                except ValueError:
                    return []
                return [words] if capture_parts(words, SOURCE.name) is not None else []
        return []

    def register(self, server: dict, project: Path | None) -> str:
        return ("conv mcp is not its MCP server yet: add it in Cline's MCP servers as "
                f"{shlex.join([server['command'], *server['args']])}")

    def unregister(self, project: Path | None) -> str:
        return ""

    def mcp(self, project: Path | None, server: dict) -> str:
        return ""


SETTINGS = ClineSettings()
