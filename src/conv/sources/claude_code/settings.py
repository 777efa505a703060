"""Claude Code: conv's hook in its settings.json, ``hooks.<Event>`` as
``[{"hooks": [{"type": "command", "command": …}]}]``. Stop runs after each
answer (the transcript holds the exchange then), SessionEnd as a session
ends, PreCompact before the context is compacted; each hands the hook a
JSON object on stdin with ``session_id`` and ``transcript_path``. The
user's other hooks, keys and their order are kept; the file's indent too."""

import json
import os
import re
import shlex
from pathlib import Path

from ...connect import Unparsable
from ...connect.commands import capture_parts
from . import home, state_file

AGENT = "claude-code"
EVENTS = ("Stop", "SessionEnd", "PreCompact")
SECONDS = 10  # the most Claude Code waits for conv's hook, which returns at once
SERVER = "conv"  # the MCP server's name: its tools reach the model as mcp__conv__search…


def settings_file(project: Path | None) -> Path:
    """User-wide: CLAUDE_CONFIG_DIR's, else ~/.claude's; a project's: its
    settings.local.json (the one Claude Code keeps out of git: the hook names
    this machine's conv)."""
    if project is not None:
        return project / ".claude" / "settings.local.json"
    return home() / "settings.json"


def added(text: str | None, command: list[str], server: dict) -> str:
    doc = _parsed(text)
    hooks = doc.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise Unparsable('its "hooks" is not an object')
    line = shlex.join(command)
    for event in EVENTS:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise Unparsable(f'its "hooks.{event}" is not a list')
        mine = [g for g in groups if _ours(g)]
        wanted = {"hooks": [{"type": "command", "command": line, "timeout": SECONDS}]}
        if mine == [wanted]:
            continue
        hooks[event] = [g for g in groups if not _ours(g)] + [wanted]
    return _dumped(doc, text)


def holds(text: str | None, command: list[str], server: dict) -> bool:
    """Whether ``text`` has conv's hooks as ``added`` would write them (every event, this conv, this store)."""
    return _parsed(added(text, command, server)) == _parsed(text)


def register(server: dict, project: Path | None) -> str:
    """``conv mcp`` as an MCP server, by Claude Code's own command (its MCP
    servers are kept in ~/.claude.json, beside its state, which only it should
    write): user-wide, or for ``project`` alone (its local scope, private to
    this user); without ``claude`` on PATH, the command to run."""
    env = [arg for key, value in server["env"].items() for arg in ("-e", f"{key}={value}")]
    scope = _scope(project)
    command = ["mcp", "add", "--scope", scope, SERVER, *env, "--", server["command"], *server["args"]]
    said = f"conv mcp is its MCP server{' for this project' if project else ''} (claude mcp add --scope {scope}): " \
           "its tools search, show and list the store"
    now = _server_now(project)
    if _same(now, server):
        return said
    if now is not None and not _is_conv(now):
        return f"an MCP server named {SERVER} is registered already, and it is not conv mcp: left as it is"
    if now is not None:  # conv mcp of another conv or store: this one's from now on
        _claude(["mcp", "remove", "--scope", scope, SERVER], project)
    done = _claude(command, project)
    if done is None:
        return f"conv mcp, its MCP server: claude is not on PATH; run: {shlex.join(['claude', *command])}"
    if done.returncode == 0:
        return said
    said = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
    return f"conv mcp, its MCP server: claude mcp add failed ({(said or ['no reason given'])[-1].strip()[:200]})"


def unregister(project: Path | None) -> str:
    """conv mcp out of the scope ``register`` put it in (a project's never touches the user-wide one)."""
    now = _server_now(project)
    if now is None or not _is_conv(now):
        return ""
    scope = _scope(project)
    done = _claude(["mcp", "remove", "--scope", scope, SERVER], project)
    if done is None or done.returncode:
        return f"conv mcp stays its MCP server: run claude mcp remove --scope {scope} {SERVER}"
    return f"conv mcp is no longer its MCP server{' for this project' if project else ''} (claude mcp remove)"


def mcp(project: Path | None, server: dict) -> str:
    """What its MCP server named conv is, user-wide or for ``project``: conv mcp of this store, of another, another
    program, or none ("")."""
    now = _server_now(project)
    if now is None:
        return ""
    if _same(now, server):
        return "conv mcp"
    if _is_conv(now):
        return f"conv mcp of {(now.get('env') or {}).get('CONV_HOME') or 'the default store'}"
    return f"another program ({str(now.get('command'))[:100]}), not conv mcp"


def _scope(project: Path | None) -> str:
    return "local" if project is not None else "user"


def _same(now: dict | None, server: dict) -> bool:
    return now is not None and [now.get("command"), now.get("args"), now.get("env") or {}] == \
        [server["command"], server["args"], server["env"]]


def _is_conv(now: dict) -> bool:
    return isinstance(now.get("args"), list) and now["args"][-1:] == ["mcp"] and \
        os.path.basename(str(now.get("command"))) in ("conv", "python", "python3")


def _server_now(project: Path | None) -> dict | None:
    """The MCP server named conv in Claude Code's state (~/.claude.json, read only), user-wide or ``project``'s."""
    try:
        state = json.loads(state_file().read_text())
        servers = state.get("projects", {}).get(str(project), {}) if project is not None else state
        found = servers.get("mcpServers", {}).get(SERVER)
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    return found if isinstance(found, dict) else None


def _claude(args: list[str], project: Path | None):
    """``claude ARGS`` in ``project`` (None when there is no claude), at most 60 s."""
    import shutil
    import subprocess

    program = shutil.which("claude")
    if program is None:
        return None
    quiet = {"DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"}
    try:
        return subprocess.run([program, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                              env={**os.environ, **quiet}, cwd=project)  # conv connect sends nothing anywhere
    except (OSError, subprocess.TimeoutExpired) as exc:
        return subprocess.CompletedProcess([program, *args], 1, "", str(exc))


def removed(text: str) -> str:
    doc = _parsed(text)
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return text
    changed = False
    for event in EVENTS:
        groups = hooks.get(event)
        if isinstance(groups, list) and any(_ours(g) for g in groups):
            changed = True
            kept = [g for g in groups if not _ours(g)]
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    if not changed:
        return text
    if not hooks:
        del doc["hooks"]
    return _dumped(doc, text)


def captures(text: str | None) -> list[list[str]]:
    """The conv capture lines of the hooks in ``text`` (each once)."""
    hooks = _parsed(text).get("hooks")
    found = []
    for event in EVENTS:
        groups = hooks.get(event) if isinstance(hooks, dict) else None
        for group in groups if isinstance(groups, list) else []:
            if _ours(group) and (line := _capture_line(group["hooks"][0]["command"])) not in found:
                found.append(line)
    return found


def _ours(group) -> bool:
    """A matcher group holding only one hook, conv's capture (an older conv's path or another store's too)."""
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list) or len(group["hooks"]) != 1:
        return False
    hook = group["hooks"][0]
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and _capture_line(hook["command"]) != []


def _capture_line(command: str) -> list[str]:
    """The command as words when it is exactly conv's capture; [] otherwise."""
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    parts = capture_parts(words, AGENT)
    return words if parts is not None and parts[1] == [] else []


def _parsed(text: str | None) -> dict:
    if text is None or not text.strip():
        return {}
    if text.startswith("\ufeff"):
        raise Unparsable("it begins with a byte-order mark (U+FEFF), which JSON does not allow")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise Unparsable(f"it is not JSON ({exc.msg.lower()}, line {exc.lineno})") from None
    except RecursionError:
        raise Unparsable("it is JSON nested too deeply") from None
    if not isinstance(doc, dict):
        raise Unparsable("it is not a JSON object")
    return doc


def _dumped(doc: dict, text: str | None) -> str:
    """``doc`` as JSON in the file's own indent (two spaces, Claude Code's, for a new file)."""
    found = re.search(r"\n([ \t]+)\S", text or "")
    indent = found.group(1) if found else "  "
    out = json.dumps(doc, indent=indent, ensure_ascii=False)
    return out + "\n" if text is None or text.endswith("\n") else out
