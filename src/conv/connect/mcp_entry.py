"""An agent's MCP server named conv, however its settings hold it (a JSON
object, a TOML table): ``{command, args, env}``. Whether it is conv mcp of
this store, of another store or an older conv's path, or another program
of the user's that conv must leave as it is."""

import os

SERVER = "conv"  # the name conv mcp is registered under: its tools reach a model as conv's search, show…


def is_conv(entry) -> bool:
    """Whether ``entry`` runs conv mcp (any conv's, any store's)."""
    if not hasattr(entry, "get"):
        return False
    args, command = entry.get("args"), str(entry.get("command"))
    return isinstance(args, list) and args[-1:] == ["mcp"] and (
        "conv" in os.path.basename(command) or os.path.basename(command).startswith("python"))


def same(entry, server: dict) -> bool:
    """Whether ``entry`` runs ``server`` (server_command()) exactly."""
    return hasattr(entry, "get") and [entry.get("command"), entry.get("args"), entry.get("env") or {}] == \
        [server["command"], server["args"], server["env"]]


def described(entry, server: dict) -> str:
    """What ``entry`` runs: conv mcp (of this store), conv mcp of another store, another program, or none ("")."""
    if not hasattr(entry, "get"):
        return ""
    if same(entry, server):
        return "conv mcp"
    if is_conv(entry):
        env = entry.get("env") if hasattr(entry.get("env"), "get") else {}
        return f"conv mcp of {env.get('CONV_HOME') or 'the default store'}"
    return f"another program ({str(entry.get('command'))[:100]}), not conv mcp"


def registered(said: str, where: str) -> str:
    """``conv connect``'s line for an MCP server conv wrote into the settings (``said``: ``described``)."""
    if said == "conv mcp":
        return f"conv mcp is its MCP server ({where}): its tools search, show, list and origin read the store"
    return f"its MCP server {SERVER} ({where}) runs {said}: left as it is" if said else ""
