"""The command lines conv gives an agent, and knowing them again in an
agent's settings: the capture (``[env CONV_HOME=…] CONV capture AGENT``, CONV
this conv's full path, as the agent's PATH may differ) and the MCP server
(``conv mcp``). An entry is conv's only when it is exactly such a line: a
user's own hook that runs conv among other things is the user's."""

import os
import sys
from pathlib import Path

DEFAULT_STORE = "the default store"


def capture_command(agent: str) -> list[str]:
    where = [f"{k}={v}" for k, v in home().items()]
    return [*(["env", *where] if where else []), *program(), "capture", agent]


def server_command() -> dict:
    """``conv mcp`` as an agent's MCP configuration holds a server: command, args, env (this CONV_HOME)."""
    found = program()
    return {"command": found[0], "args": [*found[1:], "mcp"], "env": home()}


def program() -> list[str]:
    beside = Path(sys.executable).parent / "conv"
    return [str(beside)] if beside.is_file() else [sys.executable, "-m", "conv"]


def home() -> dict:
    given = os.environ.get("CONV_HOME")
    return {"CONV_HOME": os.path.abspath(os.path.expanduser(given))} if given else {}


def capture_parts(argv: list[str], agent: str) -> tuple[str, list[str]] | None:
    """(the store it captures into, the arguments after ``capture AGENT``) of
    a conv capture line (any conv's, any CONV_HOME); None for any other line."""
    rest, store = list(argv), DEFAULT_STORE
    if rest[:1] == ["env"]:  # conv's own: CONV_HOME and nothing else (a user's wrapper sets more: it is theirs)
        if len(rest) < 2 or not rest[1].startswith("CONV_HOME="):
            return None
        store, rest = rest[1].partition("=")[2], rest[2:]
    if len(rest) >= 3 and rest[1:3] == ["-m", "conv"]:
        rest = [rest[0], *rest[3:]]
    elif not rest or os.path.basename(rest[0]) != "conv":
        return None
    return (store, rest[3:]) if rest[1:3] == ["capture", agent] else None


def this_store() -> str:
    return home().get("CONV_HOME", DEFAULT_STORE)
