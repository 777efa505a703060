"""``conv mcp``: the store as a Model Context Protocol server on stdio, for
Claude Code, Codex and every MCP client. JSON-RPC 2.0, one message a line;
the ``initialize`` handshake negotiates the protocol version (the client's
when conv speaks it, else the newest conv speaks, as the specification says).
Read-only: four tools over services/recall.py, whose answers are capped and
masked. Nothing goes to stdout but protocol messages; notes go to stderr.
Why not the official SDK: docs/architecture.md (32 MB of dependencies and
about 1.8 s to import, against 0.3 s for this server's first answer)."""

import json
import sys

from ...services.tools import NAMES

VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # newest first
INSTRUCTIONS = ("conv holds the user's past conversations with models and coding agents (Claude Code, Codex, "
                "ChatGPT, llm, conv's own…), in git. Use search to find what was said or decided before, then "
                "show to read one conversation; origin says which conversation wrote a line or commit of code.")
FILTERS = {
    "here": {"type": "string", "maxLength": 4096,
             "description": "A folder of a git project: only that project's conversations (e.g. the current working "
                            "directory)."},
    "source": {"type": "string", "maxLength": 100,
               "description": f"Only those from this tool: {', '.join(n for n in NAMES if n != 'conv')}, "
                              "or conv for conv's own."},
    "since": {"type": "string", "maxLength": 100,
              "description": "Updated within an age (7d, 12h) or since a date (2026-11-01)."},
    "model": {"type": "string", "maxLength": 1000, "description": "Only those a model of this name answered in."},
    "tag": {"type": "string", "maxLength": 1000, "description": "Only those with this tag."},
}
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
TOOLS = [
    {"name": "search", "title": "Search past conversations",
     "description": "Search every turn of the user's past conversations (with models and coding agents), the "
                    "best conversation first. Ask as you would ask a person (a question in a sentence works): "
                    "conversations holding every word come first, then those holding most of the rare ones; other "
                    "word forms match (retry, retries), \"quoted words\" must be side by side. "
                    "Each hit names the conversation (id, title, date, source, project, model) and its best turn "
                    "(turn_number), with a short snippet; read one with show.",
     "inputSchema": {"type": "object", "properties": {
         "query": {"type": "string", "maxLength": 1000,
                   "description": "What to find: a question or words (\"quoted words\" side by side; a * is no "
                                  "prefix here)."},
         **FILTERS,
         "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10}},
         "required": ["query"], "additionalProperties": False},
     "annotations": READ_ONLY},
    {"name": "show", "title": "Read a past conversation",
     "description": "The turns of one past conversation (an id or short id from search or list), the latest "
                    "last; long turns are cut and, past about 24,000 characters, the earliest turns left out "
                    "(said in left_out).",
     "inputSchema": {"type": "object", "properties": {
         "id": {"type": "string", "maxLength": 100, "description": "The conversation's id or short id."},
         "last": {"type": "integer", "minimum": 1, "description": "Only its last N turns."},
         "before": {"type": "integer", "minimum": 0, "description": "Leave out its last N turns first (to read "
                                                                     "earlier ones, as left_out says)."}},
         "required": ["id"], "additionalProperties": False},
     "annotations": READ_ONLY},
    {"name": "list", "title": "List recent conversations",
     "description": "The user's most recently updated conversations, newest first, with the same filters as "
                    "search.",
     "inputSchema": {"type": "object", "properties": {
         **FILTERS, "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}},
         "additionalProperties": False},
     "annotations": READ_ONLY},
    {"name": "origin", "title": "Which conversation wrote this code",
     "description": "Where code of a git project came from: for a file (and lines), each run of lines with the "
                    "commit git blame gives and the conversation and turn whose edit wrote that text (read it with "
                    "show, then); for a commit or a range A..B, the conversations that wrote its added lines, with "
                    "how many each, and the lines none wrote. A line no conversation wrote says why when it can.",
     "inputSchema": {"type": "object", "properties": {
         "file": {"type": "string", "maxLength": 4096, "description": "A file of the project, as an absolute path."},
         "lines": {"type": "string", "maxLength": 40, "description": "Only these lines of the file: 10-20, or 10."},
         "commit": {"type": "string", "maxLength": 400, "description": "Instead of a file: a commit (HEAD, a sha) "
                                                                      "or a range A..B."},
         "folder": {"type": "string", "maxLength": 4096,
                    "description": "With commit: a folder of the project, as an absolute path (default: the "
                                   "folder conv mcp runs in)."}},
         "additionalProperties": False},
     "annotations": READ_ONLY},
]
LINE_MOST = 4 * 1024 * 1024  # a request longer than this is no request of a client's


def run() -> None:
    """Answer requests from stdin until it ends."""
    from ... import __version__

    server = {"name": "conv", "title": "conv: past conversations", "version": __version__}
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
        if message == []:
            _send(_error(None, -32600, "invalid request: an empty batch"))
            continue
        replies = [r for m in message if (r := _answered(m, server, workspace))] \
            if isinstance(message, list) else [_answered(message, server, workspace)]
        if isinstance(message, list) and replies:
            _send(replies)
        elif not isinstance(message, list) and replies[0] is not None:
            _send(replies[0])


def _answered(message, server: dict, workspace) -> dict | None:
    """The answer to one message; whatever goes wrong inside is an error answer, and the server goes on."""
    try:
        return _answer(message, server, workspace)
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


def _answer(message, server: dict, workspace) -> dict | None:
    if isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message):
        return None  # a response (to a request conv never makes): passed over
    ident = message.get("id") if isinstance(message, dict) else None
    if not isinstance(ident, (str, int, type(None))) or isinstance(ident, bool):
        return _error(None, -32600, "invalid request: an id is a string or a number")
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
        return _error(ident, -32600, "invalid request")
    if "id" not in message:
        return None  # a notification (initialized, cancelled): nothing to answer
    method, params = message["method"], message.get("params", {})
    if not isinstance(params, dict):
        return _error(ident, -32602, "params must be an object")
    if method == "initialize":
        asked = params.get("protocolVersion")
        return _result(ident, {"protocolVersion": asked if asked in VERSIONS else VERSIONS[0],
                               "capabilities": {"tools": {"listChanged": False}}, "serverInfo": server,
                               "instructions": INSTRUCTIONS})
    if method == "ping":
        return _result(ident, {})
    if method == "tools/list":
        return _result(ident, {"tools": TOOLS})
    if method == "tools/call":
        if not isinstance(params.get("name"), str):
            return _error(ident, -32602, "tools/call needs the name of a tool: search, show or list")
        return _result(ident, _call(params["name"], params.get("arguments") or {}, workspace))
    return _error(ident, -32601, f"method not found: {method[:100]}")


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
    sys.stdout.write(json.dumps(message) + "\n")  # ASCII: a lone surrogate an id carried is written escaped
    sys.stdout.flush()
