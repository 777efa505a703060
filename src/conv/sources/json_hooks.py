"""The ``Settings`` of a tool whose hooks sit in one JSON settings file laid
out as Claude Code's (Claude Code, Qwen Code and Gemini CLI), over
connect/json_settings.py's layout."""

from ..connect import Unparsable
from ..connect.json_settings import Hooks, dumped, parsed, put_server, server_in, take_server, uncommented
from ..connect.mcp_entry import SERVER, described, registered
from .contract import Settings


class HooksSettings(Settings):
    """A tool's ``Settings`` (sources/contract.py) where its hooks sit in one
    JSON settings file laid out as Claude Code's, ``events`` each with conv's
    capture and ``keys`` (its timeout); with ``server_here`` (Qwen Code,
    Gemini CLI), conv mcp goes in the same file's ``mcpServers`` and comes out
    with the hooks. A tool says where the file is (``settings_file``)."""

    server_here = True
    own_keys: frozenset = frozenset()  # what the tool adds to a settings file by itself
    timeout_unit = 1.0  # seconds in a unit of the tool's "timeout", read the strictest way any version reads it
    default_timeout = 60.0  # seconds the tool gives a hook that sets none

    def __init__(self, source, events: tuple, keys: dict):
        self.events, self.hooks = events, Hooks(source.name, events, keys)

    def added(self, text: str | None, command: list[str], server: dict) -> str:
        doc = parsed(text)
        self.hooks.add(doc, command)
        if self.server_here:
            put_server(doc, server)
        return dumped(doc, text)

    def holds(self, text: str | None, command: list[str], server: dict) -> bool:
        """Whether ``text`` has conv's entries as ``added`` would write them (every event, this conv, this store)."""
        text = self._readable(text)  # merged in by hand where conv would not write (json_settings.parsed)
        return parsed(self.added(text, command, server)) == parsed(text)

    def removed(self, text: str) -> str:
        doc = parsed(text)
        hooks = self.hooks.remove(doc)
        server = self.server_here and take_server(doc)
        return dumped(doc, text) if hooks or server else text

    def captures(self, text: str | None) -> list[list[str]]:
        return self.hooks.captures(parsed(self._readable(text)))

    def limit(self, text: str | None) -> float | None:
        try:
            written = self.hooks.timeouts(parsed(self._readable(text)))
        except Unparsable:
            return None
        found = [t * self.timeout_unit if isinstance(t, (int, float)) and not isinstance(t, bool) and t > 0
                 else self.default_timeout for t in written]
        return min(found) if found else None

    def _readable(self, text: str | None) -> str | None:
        """``text`` as the tool reads it: its comments none, where it allows them (Claude Code does not: a file
        with one does not load there, hooks and all)."""
        return uncommented(text) if self.allows_comments else text

    def leftover(self, text: str) -> bool:
        try:
            return set(parsed(text)) <= self.own_keys
        except Unparsable:
            return False

    def register(self, server: dict, project) -> str:
        """conv mcp is in the settings (``added`` wrote it): said as it is there."""
        return registered(self.mcp(project, server), f"mcpServers.{SERVER} in {self.settings_file(project).name}")

    def unregister(self, project) -> str:
        return ""  # ``removed`` took it out with the hooks

    def mcp(self, project, server: dict) -> str:
        from ..connect import files
        from ..errors import ConvError

        try:
            data = files.read(self.settings_file(project))
            return described(server_in(parsed(self._readable(data.decode("utf-8") if data else None))), server)
        except (Unparsable, UnicodeDecodeError, ConvError):
            return ""
