"""Claude Code: conv's hook in its settings.json, ``hooks.<Event>`` as
``[{"hooks": [{"type": "command", "command": …}]}]``. Stop runs after each
answer (the transcript holds the exchange then), SessionEnd as a session
ends, PreCompact before the context is compacted; each hands the hook a
JSON object on stdin with ``session_id`` and ``transcript_path``. The
user's other hooks, keys and their order are kept; the file's indent too.
Its MCP servers are not in that file: conv mcp is registered by Claude
Code's own ``claude mcp add``."""

import json
import os
import shlex
from pathlib import Path

from ...connect.mcp_entry import SERVER, described, is_conv, same
from ..json_hooks import HooksSettings
from . import SOURCE, home, state_file

SECONDS = 10  # the most Claude Code waits for conv's hook, which returns at once


class ClaudeCodeSettings(HooksSettings):
    program = "claude"
    server_here = False

    def settings_file(self, project: Path | None) -> Path:
        """User-wide: CLAUDE_CONFIG_DIR's, else ~/.claude's; a project's: its
        settings.local.json (the one Claude Code keeps out of git: the hook names
        this machine's conv)."""
        if project is not None:
            return project / ".claude" / "settings.local.json"
        return home() / "settings.json"

    def register(self, server: dict, project: Path | None) -> str:
        """``conv mcp`` as an MCP server, by Claude Code's own command (its MCP
        servers are kept in ~/.claude.json, beside its state, which only it should
        write): user-wide, or for ``project`` alone (its local scope, private to
        this user); without ``claude`` on PATH, the command to run."""
        env = [arg for key, value in server["env"].items() for arg in ("-e", f"{key}={value}")]
        scope = _scope(project)
        command = ["mcp", "add", "--scope", scope, SERVER, *env, "--", server["command"], *server["args"]]
        said = (f"conv mcp is its MCP server{' for this project' if project else ''} (claude mcp add --scope "
                f"{scope}): its tools search, show, list and origin read the store")
        now = _server_now(project)
        if same(now, server):
            return said
        if now is not None and not is_conv(now):
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

    def unregister(self, project: Path | None) -> str:
        """conv mcp out of the scope ``register`` put it in (a project's never touches the user-wide one)."""
        now = _server_now(project)
        if not is_conv(now):
            return ""
        scope = _scope(project)
        done = _claude(["mcp", "remove", "--scope", scope, SERVER], project)
        if done is None or done.returncode:
            return f"conv mcp stays its MCP server: run claude mcp remove --scope {scope} {SERVER}"
        return f"conv mcp is no longer its MCP server{' for this project' if project else ''} (claude mcp remove)"

    def mcp(self, project: Path | None, server: dict) -> str:
        """What its MCP server named conv is, user-wide or for ``project`` (mcp_entry.described)."""
        return described(_server_now(project), server)


def _scope(project: Path | None) -> str:
    return "local" if project is not None else "user"


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


SETTINGS = ClaudeCodeSettings(SOURCE, ("Stop", "SessionEnd", "PreCompact"), {"timeout": SECONDS})
