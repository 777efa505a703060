"""Settings kept as one JSON object, as Claude Code keeps them and Qwen Code
and Gemini CLI copy: read (``parsed``) and written back in the file's own
indent (``dumped``); conv's capture as a hook, ``hooks.<Event>`` a list of
matcher groups ``{"hooks": [{"type": "command", "command": …}]}``
(``Hooks``); conv mcp in the file's ``mcpServers`` table, where the tool
reads its MCP servers from the same file (``put_server``)."""

import json
import re
import shlex

from . import Commented, Unparsable
from .commands import capture_parts
from .mcp_entry import SERVER, is_conv


def parsed(text: str | None) -> dict:
    if text is None or not text.strip():
        return {}
    if text.startswith("\ufeff"):
        raise Unparsable("it begins with a byte-order mark (U+FEFF), which JSON does not allow")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        if uncommented(text) != text:
            raise Commented("it has // or /* */ comments, which conv would lose writing it back") from None
        raise Unparsable(f"it is not JSON ({exc.msg.lower()}, line {exc.lineno})") from None
    except RecursionError:
        raise Unparsable("it is JSON nested too deeply") from None
    if not isinstance(doc, dict):
        raise Unparsable("it is not a JSON object")
    return doc


_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)  # a string (kept), or a comment


def uncommented(text: str | None) -> str | None:
    """``text`` without its // and /* */ comments when that makes it a JSON object (Gemini CLI and Qwen Code
    allow them): read so, never written so. Else ``text`` as it is."""
    if not text or ("//" not in text and "/*" not in text):
        return text
    bare = _COMMENT.sub(lambda m: m[0] if m[0].startswith('"') else "", text)
    try:
        return bare if isinstance(json.loads(bare), dict) else text
    except (json.JSONDecodeError, RecursionError):
        return text


def dumped(doc: dict, text: str | None) -> str:
    """``doc`` as JSON in the file's own indent (two spaces for a new file)."""
    found = re.search(r"\n([ \t]+)\S", text or "")
    indent = found.group(1) if found else "  "
    out = json.dumps(doc, indent=indent, ensure_ascii=False)
    return out + "\n" if text is None or text.endswith("\n") else out


class Hooks:
    """conv's capture on ``events``: in each, one matcher group holding only
    conv's capture line (``keys``: the hook's other keys, as its timeout);
    the user's groups kept, in their order."""

    def __init__(self, agent: str, events: tuple, keys: dict):
        self.agent, self.events, self.keys = agent, events, keys

    def add(self, doc: dict, command: list[str]) -> None:
        hooks = doc.setdefault("hooks", {})
        if not isinstance(hooks, dict):
            raise Unparsable('its "hooks" is not an object')
        wanted = {"hooks": [{"type": "command", "command": shlex.join(command), **self.keys}]}
        for event in self.events:
            groups = hooks.setdefault(event, [])
            if not isinstance(groups, list):
                raise Unparsable(f'its "hooks.{event}" is not a list')
            if [g for g in groups if self._ours(g)] != [wanted]:
                hooks[event] = [g for g in groups if not self._ours(g)] + [wanted]

    def remove(self, doc: dict) -> bool:
        """conv's groups out of ``doc`` (an event or ``hooks`` left empty goes too); whether there were any."""
        hooks = doc.get("hooks")
        if not isinstance(hooks, dict):
            return False
        changed = False
        for event in self.events:
            groups = hooks.get(event)
            if isinstance(groups, list) and any(self._ours(g) for g in groups):
                changed = True
                kept = [g for g in groups if not self._ours(g)]
                if kept:
                    hooks[event] = kept
                else:
                    del hooks[event]
        if changed and not hooks:
            del doc["hooks"]
        return changed

    def captures(self, doc: dict) -> list[list[str]]:
        """The conv capture lines of conv's hooks in ``doc`` (each once)."""
        hooks, found = doc.get("hooks"), []
        for event in self.events:
            groups = hooks.get(event) if isinstance(hooks, dict) else None
            for group in groups if isinstance(groups, list) else []:
                if self._ours(group) and (line := self._line(group["hooks"][0]["command"])) not in found:
                    found.append(line)
        return found

    def timeouts(self, doc: dict) -> list:
        """The timeouts conv's hooks in ``doc`` set, as written (None where one sets none)."""
        hooks = doc.get("hooks")
        return [group["hooks"][0].get("timeout") for event in self.events
                for group in (hooks.get(event) if isinstance(hooks, dict) and isinstance(hooks.get(event), list)
                              else []) if self._ours(group)]

    def _ours(self, group) -> bool:
        """A matcher group holding only one hook, conv's capture (an older conv's path or another store's too)."""
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list) or len(group["hooks"]) != 1:
            return False
        hook = group["hooks"][0]
        return isinstance(hook, dict) and isinstance(hook.get("command"), str) and self._line(hook["command"]) != []

    def _line(self, command: str) -> list[str]:
        """The command as words when it is exactly conv's capture; [] otherwise."""
        try:
            words = shlex.split(command)
        except ValueError:
            return []
        parts = capture_parts(words, self.agent)
        return words if parts is not None and parts[1] == [] else []


def server_in(doc: dict):
    """The MCP server named conv in ``doc``'s mcpServers (None: none)."""
    servers = doc.get("mcpServers")
    return servers.get(SERVER) if isinstance(servers, dict) else None


def put_server(doc: dict, server: dict, keys: dict | None = None) -> None:
    """conv mcp as ``doc``'s MCP server named conv (with the tool's own ``keys``
    when it is new), unless one that is not conv's is there (left as it is)."""
    servers = doc.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise Unparsable('its "mcpServers" is not an object')
    now = servers.get(SERVER)
    if now is None or is_conv(now):
        servers[SERVER] = {**(now if isinstance(now, dict) else keys or {}), "command": server["command"],
                           "args": server["args"], "env": server["env"]}


def take_server(doc: dict) -> bool:
    """conv mcp out of ``doc``'s mcpServers (the table too when it is left empty); whether it was there."""
    servers = doc.get("mcpServers")
    if not isinstance(servers, dict) or not is_conv(servers.get(SERVER)):
        return False
    del servers[SERVER]
    if not servers:
        del doc["mcpServers"]
    return True
