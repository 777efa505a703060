"""Codex: conv as the ``notify`` program of its config.toml, which Codex runs
after each turn with one more argument, a JSON object naming the thread
(``agent-turn-complete``), and ``conv mcp`` as its MCP server
``[mcp_servers.conv]``. There is one ``notify``: a program the user had
there is kept and run by conv's capture after it (``--then PROGRAM ARGS``),
and put back as it was by ``--remove``. tomlkit keeps the file's comments,
order and layout."""

from pathlib import Path

from ...connect import Unparsable
from ...connect.commands import capture_parts
from ...connect.mcp_entry import SERVER, described, is_conv, registered
from ...errors import ConvError
from ..contract import Settings
from . import SOURCE, home

THEN = "--then"  # conv capture codex --then PROGRAM ARGS JSON: the user's own notify, run too


class CodexSettings(Settings):
    program = "codex"
    events = ("agent-turn-complete",)

    def settings_file(self, project: Path | None) -> Path:
        if project is not None:
            raise Unparsable("Codex reads notify from its user-wide config.toml only: connect it without --project")
        return home() / "config.toml"

    def added(self, text: str | None, command: list[str], server: dict) -> str:
        """``text`` with conv's notify (the user's own kept after ``--then``) and
        ``[mcp_servers.conv]``, written the way the file already writes its MCP
        servers (tables, an inline table, dotted keys); what the TOML means is
        checked afterwards: nothing of the user's moved, or conv changes nothing."""
        doc = _parsed(text)
        meant = doc.unwrap()
        now = _notify(doc)
        theirs = _theirs(now) if now is not None and _is_capture(now) else now
        wanted = [*command, *([THEN, *theirs] if theirs else [])]
        if now != wanted:
            doc["notify"] = wanted
        meant["notify"] = wanted
        servers = doc.get("mcp_servers")
        if servers is not None and not hasattr(servers, "get"):
            raise Unparsable("its mcp_servers is not a table")
        mine = servers.get(SERVER) if servers is not None else None
        entry = {k: v for k, v in server.items() if v}
        if mine is None or (is_conv(mine) and _plain(mine) != entry):
            _put(doc, servers, entry)
            meant.setdefault("mcp_servers", {})[SERVER] = entry
        return _checked(doc, meant, f"add notify = {wanted!r} and [mcp_servers.{SERVER}] by hand")

    def holds(self, text: str | None, command: list[str], server: dict) -> bool:
        """Whether ``text`` has conv's notify and MCP server as ``added`` would write them."""
        return self.added(text, command, server) == (text or "")

    def register(self, server: dict, project: Path | None) -> str:
        """conv mcp is in config.toml (``added`` wrote it): said as it is there."""
        return registered(self.mcp(project, server), f"[mcp_servers.{SERVER}]")

    def unregister(self, project: Path | None) -> str:
        return ""

    def mcp(self, project: Path | None, server: dict) -> str:
        """What its [mcp_servers.conv] runs (mcp_entry.described)."""
        from ...connect import files

        try:
            data = files.read(self.settings_file(None))
            found = _parsed(data.decode("utf-8") if data else "").get("mcp_servers")
            return described(_plain(found.get(SERVER)) if hasattr(found, "get") else None, server)
        except (Unparsable, UnicodeDecodeError, ValueError, OSError, ConvError):
            return ""

    def removed(self, text: str) -> str:
        doc = _parsed(text)
        meant = doc.unwrap()
        now = _notify(doc)
        servers = doc.get("mcp_servers")
        server = servers.get(SERVER) if hasattr(servers, "get") else None
        if (now is None or not _is_capture(now)) and not (server is not None and is_conv(server)):
            return text
        if now is not None and _is_capture(now):
            theirs = _theirs(now)
            if theirs:
                doc["notify"] = meant["notify"] = theirs
            else:
                del doc["notify"]
                del meant["notify"]
        if server is not None and is_conv(server):
            del servers[SERVER]
            del meant["mcp_servers"][SERVER]
            if not servers:
                del doc["mcp_servers"]
                del meant["mcp_servers"]
        out = _checked(doc, meant, "take out conv's notify and [mcp_servers.conv] by hand")
        # the blank lines conv's tables stood between, closed up
        out = out.lstrip("\n") if not text.startswith("\n") else out
        return out.rstrip("\n") + "\n" if out.strip() else ""

    def captures(self, text: str | None) -> list[list[str]]:
        now = _notify(_parsed(text))
        return [now] if now is not None and _is_capture(now) else []


def _put(doc, servers, entry: dict) -> None:
    """conv's MCP server into ``doc``, in the form its other servers take."""
    import tomlkit

    if servers is not None and SERVER in servers:
        del servers[SERVER]
    if isinstance(servers, tomlkit.items.InlineTable):  # mcp_servers = { other = {…} }
        inline = tomlkit.inline_table()
        inline.update(entry)
        servers[SERVER] = inline
        return
    if servers is not None and _dotted(doc):  # mcp_servers.other.command = "…" at the top
        for key, value in entry.items():
            doc.add(tomlkit.key(["mcp_servers", SERVER, key]), _value(value))
        return
    if servers is None:
        servers = doc["mcp_servers"] = tomlkit.table(is_super_table=True)
    table = tomlkit.table()
    for key, value in entry.items():
        table[key] = _value(value)
    servers[SERVER] = table


def _dotted(doc) -> bool:
    """Whether the document's mcp_servers is written as dotted keys of the top table."""
    return any(key is not None and key.is_dotted() and key.key == "mcp_servers" for key, _ in doc.body)


def _value(value):
    import tomlkit

    if isinstance(value, dict):
        inline = tomlkit.inline_table()
        inline.update(value)
        return inline
    return value


def _checked(doc, meant: dict, by_hand: str) -> str:
    """The new text, when it means ``meant``; else conv changes nothing, and says what to do by hand."""
    out = doc.as_string()
    if _parsed(out).unwrap() != meant:
        raise Unparsable(f"conv cannot change it without moving keys of yours around: {by_hand}")
    return out


def _plain(item):
    return item.unwrap() if hasattr(item, "unwrap") else item


def _is_capture(argv: list[str]) -> bool:
    parts = capture_parts(argv, SOURCE.name)
    return parts is not None and (parts[1] == [] or parts[1][0] == THEN)


def user_program(argv: list[str]) -> list[str]:
    """Of the arguments after ``conv capture codex``: the user's own notify program, if one was kept."""
    return argv[argv.index(THEN) + 1:] if THEN in argv else []


def _theirs(ours: list[str]) -> list[str]:
    return user_program(capture_parts(ours, SOURCE.name)[1])


def _parsed(text: str | None):
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        return tomlkit.parse(text or "")
    except TOMLKitError as exc:
        raise Unparsable(f"it is not TOML ({exc})") from None
    except RecursionError:
        raise Unparsable("it is TOML nested too deeply") from None


def _notify(doc) -> list[str] | None:
    if "notify" not in doc:
        return None
    value = doc["notify"].unwrap() if hasattr(doc["notify"], "unwrap") else doc["notify"]
    if value == []:
        return None  # no program
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise Unparsable("its notify is not a list of strings (a program and its arguments)")
    return value


SETTINGS = CodexSettings()
