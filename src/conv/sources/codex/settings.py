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
from . import home

AGENT = "codex"
EVENTS = ("agent-turn-complete",)
SERVER = "conv"  # [mcp_servers.conv]
THEN = "--then"  # conv capture codex --then PROGRAM ARGS JSON: the user's own notify, run too


def settings_file(project: Path | None) -> Path:
    if project is not None:
        raise Unparsable("Codex reads notify from its user-wide config.toml only: connect it without --project")
    return home() / "config.toml"


def added(text: str | None, command: list[str], server: dict) -> str:
    import tomlkit

    doc = _parsed(text)
    now = _notify(doc)
    theirs = _theirs(now) if now is not None and _is_capture(now) else now
    wanted = [*command, *([THEN, *theirs] if theirs else [])]
    if now != wanted:
        doc["notify"] = wanted
    servers = doc.get("mcp_servers")
    if servers is None:
        servers = doc["mcp_servers"] = tomlkit.table(is_super_table=True)
    elif not hasattr(servers, "get"):
        raise Unparsable("its mcp_servers is not a table")
    mine = servers.get(SERVER)
    entry = {k: v for k, v in server.items() if v}
    if mine is None or (_ours(mine) and mine.unwrap() != entry):
        table = tomlkit.table()
        for key, value in entry.items():
            table[key] = tomlkit.inline_table() if isinstance(value, dict) else value
            if isinstance(value, dict):
                table[key].update(value)
        servers[SERVER] = table
    return doc.as_string()


def holds(text: str | None, command: list[str], server: dict) -> bool:
    """Whether ``text`` has conv's notify and MCP server as ``added`` would write them."""
    return added(text, command, server) == (text or "")


def registered(server: dict) -> str:
    return "conv mcp is its MCP server [mcp_servers.conv]: its tools search, show and list the store"


def unregistered() -> str:
    return ""


def removed(text: str) -> str:
    doc = _parsed(text)
    now = _notify(doc)
    servers = doc.get("mcp_servers")
    server = servers.get(SERVER) if hasattr(servers, "get") else None
    if (now is None or not _is_capture(now)) and not (server is not None and _ours(server)):
        return text
    if now is not None and _is_capture(now):
        theirs = _theirs(now)
        if theirs:
            doc["notify"] = theirs
        else:
            del doc["notify"]
    if server is not None and _ours(server):
        del servers[SERVER]
        if not servers:
            del doc["mcp_servers"]
    out = doc.as_string()  # the blank lines conv's tables stood between, closed up
    out = out.lstrip("\n") if not text.startswith("\n") else out
    return out.rstrip("\n") + "\n" if out.strip() else ""


def _ours(server) -> bool:
    """An [mcp_servers.conv] that runs conv mcp (an older conv's path too)."""
    args = server.get("args") if hasattr(server, "get") else None
    return isinstance(args, list) and bool(args) and args[-1] == "mcp" and "conv" in str(server.get("command"))


def captures(text: str | None) -> list[list[str]]:
    now = _notify(_parsed(text))
    return [now] if now is not None and _is_capture(now) else []


def _is_capture(argv: list[str]) -> bool:
    parts = capture_parts(argv, AGENT)
    return parts is not None and (parts[1] == [] or parts[1][0] == THEN)


def user_program(argv: list[str]) -> list[str]:
    """Of the arguments after ``conv capture codex``: the user's own notify program, if one was kept."""
    return argv[argv.index(THEN) + 1:] if THEN in argv else []


def _theirs(ours: list[str]) -> list[str]:
    return user_program(capture_parts(ours, AGENT)[1])


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
