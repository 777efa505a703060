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

from . import Unparsable, is_capture

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
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or "~/.claude").expanduser() / "settings.json"


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


def registered(server: dict) -> str:
    """``conv mcp`` as a user-wide MCP server, by Claude Code's own command
    (its MCP servers are kept in ~/.claude.json, beside its state, which only
    it should write); without ``claude`` on PATH, the command to run."""
    env = [arg for key, value in server["env"].items() for arg in ("-e", f"{key}={value}")]
    command = ["mcp", "add", "--scope", "user", SERVER, *env, "--", server["command"], *server["args"]]
    done = _claude(command)
    if done is None:
        return f"conv mcp, its MCP server: claude is not on PATH; run: {shlex.join(['claude', *command])}"
    if done.returncode == 0 or "already exists" in done.stdout + done.stderr:
        return "conv mcp is its MCP server (claude mcp add): its tools search, show and list the store"
    return f"conv mcp, its MCP server: claude mcp add failed: {(done.stderr or done.stdout).strip()[-200:]}"


def unregistered() -> str:
    done = _claude(["mcp", "remove", "--scope", "user", SERVER])
    if done is None or done.returncode:
        return f"conv mcp stays its MCP server: run claude mcp remove --scope user {SERVER}"
    return "conv mcp is no longer its MCP server (claude mcp remove)"


def _claude(args: list[str]):
    """``claude ARGS`` (None when there is no claude), at most 60 s."""
    import shutil
    import subprocess

    program = shutil.which("claude")
    if program is None:
        return None
    try:
        return subprocess.run([program, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
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


def _ours(group) -> bool:
    """A matcher group holding only conv's capture (an older conv's path too)."""
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list) or not group["hooks"]:
        return False
    return all(isinstance(h, dict) and isinstance(h.get("command"), str) and _is_capture_line(h["command"])
               for h in group["hooks"])


def _is_capture_line(command: str) -> bool:
    try:
        return is_capture(shlex.split(command), AGENT)
    except ValueError:
        return False


def _parsed(text: str | None) -> dict:
    if text is None or not text.strip():
        return {}
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
