"""``conv mcp``: the store as a Model Context Protocol server on stdio, for
Claude Code, Codex and every MCP client. JSON-RPC 2.0, one message a line;
the ``initialize`` handshake negotiates the protocol version (the client's
when conv speaks it, else the newest conv speaks, as the specification says).
Read-only: four tools over services/recall.py, whose answers are capped and
masked, and the conversations as resources (services/resources.py), whose list
is said to have changed when the store's head moves. Nothing goes to stdout but protocol messages; notes go to stderr.
Why not the official SDK: docs/architecture.md (32 MB of dependencies and
about 1.8 s to import, against 0.3 s for this server's first answer)."""

import json
import sys
import threading

from .mcp_offer import FILTERS, TEMPLATES, TOOLS

VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # newest first
INSTRUCTIONS = ("conv holds the user's past conversations with models and coding agents (Claude Code, Codex, "
                "ChatGPT, llm, conv's own…), in git. Use search to find what was said or decided before, then "
                "show to read one conversation; origin says which conversation wrote a line or commit of code.")
_WRITING = threading.Lock()
LINE_MOST = 4 * 1024 * 1024  # a request longer than this is no request of a client's


BATCHED = ("2025-03-26", "2024-11-05")  # the versions whose clients may send a batch (2025-06-18 removed them)


def run() -> None:
    """Answer requests from stdin until it ends; once the client has initialized, say when the list of
    resources changed (a capture or an ask moved the store's head)."""
    from ... import __version__

    server = {"name": "conv", "title": "conv: past conversations", "version": __version__}
    state: dict = {}  # "version": negotiated; "watching": the store's head is watched
    opened: list = []  # the workspace, opened at the first tool call: initialize answers without it

    def workspace():
        if not opened:
            opened.append(_ws())
        return opened[0]

    for line in _lines():
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            _send(_error(None, -32700, "parse error: not JSON"))
            continue
        if isinstance(message, list):
            if state.get("version") not in BATCHED or not message:
                _send(_error(None, -32600, "invalid request: " + ("an empty batch" if message == [] else
                                                                  "no batch in this protocol version")))
                continue
            replies = [r for m in message if (r := _answered(m, server, state, workspace))]
            if replies:
                _send(replies)
        elif (reply := _answered(message, server, state, workspace)) is not None:
            _send(reply)
        if state.get("initialized") and not state.get("watching"):
            state["watching"] = True
            _watch_head()


def _watch_head(every: float = 1.0) -> None:
    """From now on, ``notifications/resources/list_changed`` each time the store's head moves (a thread of
    its own, with a store of its own: it reads one ref a second)."""
    import threading
    import time

    def watch():
        from ...services.resources import store_head

        last = store_head()
        while True:
            time.sleep(every)
            try:
                now = store_head()
            except Exception:  # noqa: BLE001 - a store being written or moved: looked at again next time
                continue
            if now != last:
                last = now
                _send({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"})

    threading.Thread(target=watch, daemon=True, name="conv-mcp-head").start()


def _answered(message, server: dict, state: dict, workspace) -> dict | None:
    """The answer to one message; whatever goes wrong inside is an error answer, and the server goes on."""
    try:
        return _answer(message, server, state, workspace)
    except Exception as exc:  # noqa: BLE001 - one bad request never ends the server
        print(f"conv: mcp: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        return _error(message.get("id") if isinstance(message, dict) else None, -32603, "internal error")


def _ws():
    from ...services.workspace import Workspace

    return Workspace(notice=lambda line: print(f"conv: {line}", file=sys.stderr, flush=True))


def _lines():
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline(LINE_MOST + 1)
        if not line:
            return
        if len(line) > LINE_MOST:
            while line and not line.endswith(b"\n"):  # the rest of it, passed over
                line = stdin.readline(LINE_MOST)
            _send(_error(None, -32600, "request too large"))
            continue
        if line.strip():
            yield line.decode("utf-8", "replace")


def _answer(message, server: dict, state: dict, workspace) -> dict | None:
    if isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message):
        return None  # a response (to a request conv never makes): passed over
    ident = message.get("id") if isinstance(message, dict) else None
    if not isinstance(ident, (str, int, type(None))) or isinstance(ident, bool) \
            or isinstance(message, dict) and "id" in message and ident is None:  # MCP: never null
        return _error(None, -32600, "invalid request: an id is a string or a number")
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
        return _error(ident, -32600, "invalid request")
    method, params = message["method"], message.get("params", {})
    if "id" not in message:  # a notification (initialized, cancelled): nothing to answer
        if method == "notifications/initialized" and "version" in state:
            state["initialized"] = True
        return None
    if not isinstance(params, dict):
        return _error(ident, -32602, "params must be an object")
    if method == "initialize":
        if "version" in state:  # once a session: the version agreed on stays
            return _error(ident, -32600, "invalid request: already initialized")
        asked = params.get("protocolVersion")
        state["version"] = asked if asked in VERSIONS else VERSIONS[0]
        return _result(ident, {"protocolVersion": state["version"],
                               "capabilities": {"tools": {"listChanged": False},
                                                "resources": {"listChanged": True, "subscribe": False}},
                               "serverInfo": server, "instructions": INSTRUCTIONS})
    if method == "ping":
        return _result(ident, {})
    if "version" not in state:
        return _error(ident, -32600, f"invalid request: {method[:100]} before initialize")
    if method == "tools/list":
        return _result(ident, {"tools": TOOLS})
    if method == "tools/call":
        if not isinstance(params.get("name"), str):
            return _error(ident, -32602, "tools/call needs the name of a tool: search, show, list or origin")
        if not isinstance(params.get("arguments", {}), dict):
            return _error(ident, -32602, "tools/call: arguments must be an object")
        return _result(ident, _call(params["name"], params.get("arguments") or {}, workspace))
    if method in ("resources/list", "resources/read", "resources/templates/list"):
        return _resources(ident, method, params, workspace)
    return _error(ident, -32601, f"method not found: {method[:100]}")


def _resources(ident, method: str, params: dict, workspace) -> dict:
    """The conversations as resources (services/resources.py): listed, a template for any, one read."""
    import os

    from ...errors import ConvError
    from ...services import resources

    if method == "resources/templates/list":
        return _result(ident, {"resourceTemplates": TEMPLATES})
    if method == "resources/list":
        return _result(ident, {"resources": resources.listed(workspace(), os.getcwd())})
    uri = params.get("uri")
    if not isinstance(uri, str):
        return _error(ident, -32602, "resources/read needs the uri of a resource: conv://ID or conv://current")
    try:
        return _result(ident, {"contents": [resources.read(workspace(), uri)]})
    except ConvError as exc:
        return {"jsonrpc": "2.0", "id": ident, "error": {"code": -32002, "message": f"resource not found: "
                                                                                    f"{exc.message}",
                                                          "data": {"uri": uri[:200]}}}


def _call(name, arguments, workspace) -> dict:
    """A tool's answer; what goes wrong is the tool's error, for the model to read (not the protocol's)."""
    from ...errors import ConvError, then
    from ...services import recall

    try:
        if name not in ("search", "show", "list", "origin"):
            raise ConvError(f"no tool called {name[:100]!r}", "use search, show, list or origin")
        if not isinstance(arguments, dict):
            raise ConvError("arguments must be an object")
        args = _checked(next(t for t in TOOLS if t["name"] == name)["inputSchema"], arguments)
        ws = workspace()
        if name == "show":
            data = recall.conversation(ws, args["id"], args.get("last"), args.get("before", 0))
        elif name == "origin":
            data = recall.origin(ws, **args)
        else:
            chosen = recall.filters(**{k: args.get(k) for k in FILTERS})
            data = ({"hits": recall.search(ws, args["query"], args.get("limit", 10), chosen)} if name == "search"
                    else {"conversations": recall.recent(ws, args.get("limit", 20), chosen)})
    except ConvError as exc:  # its hint, unless it names a command line the agent has not got
        hint = "the search and list tools give the ids" if "conv list" in exc.hint else exc.hint
        text = then(exc.message, hint) if hint and "conv " not in hint else exc.message
        return {"content": [{"type": "text", "text": text}], "isError": True}
    text = json.dumps(data, ensure_ascii=False)  # an object, given as text and as structured content alike:
    return {"content": [{"type": "text", "text": text}], "structuredContent": data}  # Gemini CLI reads the text so


def _checked(schema: dict, arguments: dict) -> dict:
    """``arguments`` held to the tool's schema: known names, the right types, numbers in range."""
    from ...errors import ConvError

    properties = schema["properties"]
    for key, value in arguments.items():
        kind = properties.get(key)
        if kind is None:
            raise ConvError(f"unknown argument {key!r}", "use " + ", ".join(properties))
        if kind["type"] == "integer":
            if isinstance(value, float) and value.is_integer():
                value = arguments[key] = int(value)  # 5.0: JSON has one kind of number
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConvError(f"{key} must be a whole number")
            if not kind.get("minimum", value) <= value <= kind.get("maximum", value):
                raise ConvError(f"{key} must be from {kind['minimum']} to {kind['maximum']}" if "maximum" in kind
                                else f"{key} must be {kind['minimum']} or more")
        elif not isinstance(value, str):
            raise ConvError(f"{key} must be a string")
        elif "\x00" in value or not value.isprintable() and any("\ud800" <= c <= "\udfff" for c in value):
            raise ConvError(f"{key} holds a NUL or a lone surrogate: no text conv stores does")
        elif len(value) > kind.get("maxLength", len(value)):
            raise ConvError(f"{key} is longer than {kind['maxLength']:,} characters")
    missing = [key for key in schema.get("required", []) if key not in arguments]
    if missing:
        raise ConvError(f"{missing[0]} is required")
    return arguments


def _result(ident, result: dict) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def _error(ident, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


def _send(message) -> None:
    with _WRITING:  # the answers and the head's watcher: one line at a time
        sys.stdout.write(json.dumps(message) + "\n")  # ASCII: a lone surrogate an id carried is written escaped
        sys.stdout.flush()
