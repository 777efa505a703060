"""The command line's shape in one table: each command's options (every
spelling, the parameter it sets, how many values it takes), the groups'
subcommands and the commands that take a conversation. The fast path
(run/argv.py) parses the commands a key runs from it without Typer, and
completion (run/complete.py) offers it; the Typer commands in cli/ declare
the same options, and tests/test_completion.py holds them to this table.
Plain data: it is read on every follow-up."""

SWITCH, VALUE, PAIR = 0, 1, 2  # the values an option takes (PAIR: -o KEY VALUE)


def _option(name: str, values: int, *spellings: str) -> dict[str, tuple[str, int]]:
    return {spelling: (name, values) for spelling in spellings}


JSON = _option("json_out", SWITCH, "--json")
PREVIEW = _option("preview", SWITCH, "--preview")
FORCE = _option("force", SWITCH, "--force")
MODEL = _option("model", VALUE, "-m", "--model")
QUIET = _option("quiet", SWITCH, "-q", "--quiet")
PLAIN = _option("plain", SWITCH, "--plain")
NO_STREAM = _option("no_stream", SWITCH, "--no-stream")
MODEL_OPTION = _option("option", PAIR, "-o", "--option")
FOLLOW = _option("follow", SWITCH, "-c", "--continue")
SYSTEM = _option("system", VALUE, "-s", "--system")
AGENT = _option("agent", VALUE, "-a", "--agent")
HERE = _option("here", SWITCH, "--here")
TAG, SINCE = _option("tag", VALUE, "--tag"), _option("since", VALUE, "--since")
FOUND = {**_option("limit", VALUE, "-n", "--limit"), **AGENT, **TAG, **SINCE, **_option("status", VALUE, "--status"),
         **_option("source", VALUE, "--source"), **MODEL}
LISTED = {**FOUND, **_option("tree", SWITCH, "--tree"), **_option("deleted", SWITCH, "--deleted"), **HERE, **JSON}

OPTIONS: dict[str, dict[str, tuple[str, int]]] = {  # command -> spelling -> (parameter, values)
    "ask": {**FOLLOW, **_option("cid", VALUE, "--cid"), **_option("new", SWITCH, "-n", "--new"), **MODEL, **SYSTEM,
            **NO_STREAM, **JSON, **QUIET, **_option("no_save", SWITCH, "--no-save"), **AGENT,
            **_option("dry_run", SWITCH, "--dry-run"), **PLAIN, **MODEL_OPTION,
            **_option("file", VALUE, "-f", "--file")},
    "retry": {**_option("hint", VALUE, "--hint"), **_option("wrong", SWITCH, "--wrong"), **MODEL, **NO_STREAM, **JSON,
              **QUIET, **PLAIN, **MODEL_OPTION},
    "cmd": {**_option("shell", VALUE, "--shell"), **MODEL, **JSON, **QUIET},
    "chat": {**FOLLOW, **MODEL, **SYSTEM, **AGENT, **PLAIN},
    "use": {}, "clear": {}, "resume": _option("pick", SWITCH, "--pick"),
    "c": LISTED,
    "list": LISTED,
    "search": {**FOUND, **HERE, **JSON},
    "blame": JSON,
    "serve": {**_option("port", VALUE, "--port"), **_option("open_browser", SWITCH, "--open")},
    "origin": {**JSON, **_option("note", SWITCH, "--note"), **_option("link", SWITCH, "--link"),
               **_option("unlink", SWITCH, "--unlink"), **_option("staged", SWITCH, "--staged")},
    "stats": {**_option("by", VALUE, "--by"), **SINCE, **_option("until", VALUE, "--until"), **HERE,
              **_option("source", VALUE, "--source"), **JSON},
    "show": {**_option("latest", SWITCH, "-l", "--latest"), **JSON, **_option("raw", SWITCH, "--raw"),
             **_option("last", VALUE, "--last"), **_option("turn", VALUE, "--turn")},
    "log": JSON,
    "diff": {**_option("rev", VALUE, "--rev"), **JSON},
    "fork": {**_option("at", VALUE, "--at"), **_option("title", VALUE, "--title"), **JSON},
    "title": {}, "tag": {}, "status": {}, "summary": {},
    "edit": JSON, "delete": JSON, "restore": JSON,
    "clean": {**_option("older", VALUE, "--older"), **_option("dry_run", SWITCH, "--dry-run"),
              **_option("purge", SWITCH, "--purge"), **_option("yes", SWITCH, "--yes"), **JSON},
    "git": {}, "gc": {}, "fsck": {}, "reindex": {},
    "export": {**_option("fmt", VALUE, "--format", "-f"), **_option("everything", SWITCH, "--all"), **TAG, **SINCE,
               **HERE, **_option("output", VALUE, "-o", "--output"), **PREVIEW, **_option("no_redact", SWITCH,
                                                                                           "--no-redact")},
    "share": {**_option("output", VALUE, "-o", "--output"), **PREVIEW, **FORCE},
    "import": {**_option("source", VALUE, "--from"), **JSON},
    "handoff": {**_option("to", VALUE, "--to"), **JSON},
    "mcp": {},
    "connect": {**_option("remove", SWITCH, "--remove"), **_option("project", SWITCH, "--project"),
                **_option("check", SWITCH, "--check"), **JSON},
    "sync": JSON,
    "push": {**JSON, **_option("project", SWITCH, "--project"), **PREVIEW, **_option("yes", SWITCH, "--yes"),
             **FORCE},
    "pull": JSON,
    "init": {}, "prompt": {},
    "models": JSON,
}
REPEATED = ("option", "file", "by")  # parameters given as often as wanted
GROUPS: dict[str, tuple[str, ...]] = {"models": ("pull",), "hooks": ("install", "list"),
                                      "config": ("get", "set", "unset", "path"),
                                      "remote": ("add", "remove", "list", "purge")}
TAKE_A_CONVERSATION = ("retry", "chat", "use", "show", "log", "diff", "fork", "title", "tag", "status", "summary",
                       "edit", "delete", "restore", "clean", "export", "share", "handoff")
