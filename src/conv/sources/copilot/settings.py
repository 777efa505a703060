"""Copilot CLI: conv's hooks as a file of conv's own, ``hooks/conv.json`` in
its home (a repository's ``.github/hooks/conv.json`` for a project),
``{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": …}],
"sessionEnd": […]}}``: agentStop runs after each answer (the session's
events hold it then), sessionEnd as a session ends; each hands the hook a
JSON object on stdin naming the session. conv mcp goes in its
``mcp-config.json``, the file ``copilot mcp add`` writes, its other servers
kept."""

import shlex
from pathlib import Path

from ...connect import Unparsable
from ...connect.commands import capture_parts
from ...connect.json_settings import dumped, parsed, put_server, server_in, take_server
from ...connect.mcp_entry import described, registered
from ..contract import Settings
from . import SOURCE, home

SECONDS = 10  # the most Copilot waits for conv's hook, which returns at once
SERVER_KEYS = {"type": "local", "tools": ["*"]}  # what copilot mcp add writes besides the command


class CopilotSettings(Settings):
    program = "copilot"
    events = ("agentStop", "sessionEnd")

    def settings_file(self, project: Path | None) -> Path:
        return (project / ".github" if project is not None else self.installed()) / "hooks" / "conv.json"

    def installed(self) -> Path:
        """The tool's own folder (conv's hook goes in a folder the tool does not make)."""
        return home()

    def added(self, text: str | None, command: list[str], server: dict) -> str:
        doc = parsed(text)
        doc.setdefault("version", 1)
        hooks = doc.setdefault("hooks", {})
        if not isinstance(hooks, dict):
            raise Unparsable('its "hooks" is not an object')
        wanted = {"type": "command", "bash": shlex.join(command), "timeoutSec": SECONDS}
        for event in self.events:
            entries = hooks.setdefault(event, [])
            if not isinstance(entries, list):
                raise Unparsable(f'its "hooks.{event}" is not a list')
            if [e for e in entries if _ours(e)] != [wanted]:
                hooks[event] = [e for e in entries if not _ours(e)] + [wanted]
        return dumped(doc, text)

    def holds(self, text: str | None, command: list[str], server: dict) -> bool:
        return parsed(self.added(text, command, server)) == parsed(text)

    def removed(self, text: str) -> str:
        doc = parsed(text)
        hooks = doc.get("hooks")
        if not isinstance(hooks, dict) or not any(_ours(e) for event in self.events for e in _entries(hooks, event)):
            return text
        for event in self.events:
            kept = [e for e in _entries(hooks, event) if not _ours(e)]
            if kept:
                hooks[event] = kept
            else:
                hooks.pop(event, None)
        return dumped(doc, text)

    def limit(self, text: str | None) -> float | None:
        hooks = parsed(text).get("hooks")
        found = [e.get("timeoutSec") for event in self.events for e in (_entries(hooks, event) if isinstance(
            hooks, dict) else ()) if _ours(e)]
        seconds = [t for t in found if isinstance(t, (int, float)) and not isinstance(t, bool) and t > 0]
        return min(seconds) if seconds else None

    def captures(self, text: str | None) -> list[list[str]]:
        hooks, found = parsed(text).get("hooks"), []
        for event in self.events:
            for entry in _entries(hooks, event) if isinstance(hooks, dict) else ():
                if _ours(entry) and (line := shlex.split(entry["bash"])) not in found:
                    found.append(line)
        return found

    def register(self, server: dict, project: Path | None) -> str:
        """conv mcp into mcp-config.json, user-wide (Copilot reads no project's MCP servers conv could name)."""
        if project is not None:
            return ""
        from ...connect import files

        file = servers_file()
        try:
            data = files.read(file)
            text = data.decode("utf-8") if data is not None else None
            doc = parsed(text)
            put_server(doc, server, SERVER_KEYS)
            new = files.same_endings(dumped(doc, text), text).encode()
            if new != data:
                files.write(file, new)
        except (Unparsable, UnicodeDecodeError) as exc:
            return f"conv mcp is not its MCP server: {file} cannot be read ({exc}); add it with copilot mcp add"
        return registered(self.mcp(project, server), file.name)

    def also_written(self, project: Path | None) -> list[Path]:
        return [servers_file()] if project is None else []

    def unregister(self, project: Path | None) -> str:
        if project is not None:
            return ""
        from ...connect import files

        file = servers_file()
        try:
            data = files.read(file)
            doc = parsed(data.decode("utf-8") if data is not None else None)
            if not take_server(doc):
                return ""
            files.write(file, files.same_endings(dumped(doc, data.decode("utf-8")), data.decode("utf-8")).encode())
        except (Unparsable, UnicodeDecodeError):
            return f"conv mcp stays its MCP server: take it out of {file} with copilot mcp remove conv"
        return f"conv mcp is no longer its MCP server ({file.name})"

    def mcp(self, project: Path | None, server: dict) -> str:
        from ...connect import files
        from ...errors import ConvError

        if project is not None:
            return ""
        try:
            data = files.read(servers_file())
            found = server_in(parsed(data.decode("utf-8") if data is not None else None))
        except (Unparsable, UnicodeDecodeError, ConvError):
            return ""
        return described({k: v for k, v in found.items() if k not in SERVER_KEYS} if isinstance(found, dict) else None,
                         server)


def servers_file() -> Path:
    return home() / "mcp-config.json"


def _entries(hooks: dict, event: str) -> list:
    found = hooks.get(event)
    return found if isinstance(found, list) else []


def _ours(entry) -> bool:
    """A hook entry that is exactly conv's capture (an older conv's path or another store's too)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("bash"), str):
        return False
    try:
        parts = capture_parts(shlex.split(entry["bash"]), SOURCE.name)
    except ValueError:
        return False
    return parts is not None and parts[1] == []


SETTINGS = CopilotSettings()
