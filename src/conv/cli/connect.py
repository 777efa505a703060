"""``conv connect``: the coding agents that hand each exchange to conv as it
happens; ``conv handoff``: a conversation carried on in one of them."""

from typing import Annotated, Optional

import typer

from ..services import tools
from .app import app, workspace
from .exchange import PANEL


@app.command(rich_help_panel=PANEL,
             epilog="Examples:\n\n  conv connect                      # what is connected, what could be\n\n"
             "  conv connect claude-code          # its hooks in ~/.claude/settings.json\n\n"
             "  conv connect codex                # its notify in ~/.codex/config.toml\n\n"
             "  conv connect gemini               # its hooks in ~/.gemini/settings.json\n\n"
             "  conv connect --check              # run each hook as its tool would: what would be lost\n\n"
             "  conv connect all --remove         # the settings as they were",
             help=f"Have coding agents ({tools.said('settings', titles=True, last='and')}) hand each exchange to "
                  "conv as it happens, through their own hooks (Codex: its notify program); each also gets conv mcp "
                  "as an MCP server, to search what was said before. Your own settings, hooks and comments are "
                  "kept.")
def connect(
    agent: Annotated[Optional[str], typer.Argument(help=f"{', '.join(name for name, _ in tools.named('settings'))} "
                                                        "or all (none: show what is connected).",
                                                   show_default=False)] = None,
    remove: Annotated[bool, typer.Option("--remove", help="Take conv's hook out again: the settings file as it "
                                                          "was, if nothing else changed it since.")] = False,
    project: Annotated[bool, typer.Option("--project", help="Only in the git project you are in (its "
                                                            "project settings: .claude/settings.local.json, "
                                                            ".gemini/ or .qwen/settings.json, "
                                                            ".github/hooks/conv.json, .pi/extensions/, "
                                                            ".opencode/plugin/, .clinerules/hooks/), not "
                                                            "user-wide.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Run each connected tool's hook (or AGENT's) as the tool "
                                                        "runs it, held to the time the tool gives it, and say "
                                                        "what would be lost (exit 1 if anything).")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    from ..errors import UsageError
    from ..services import connections
    from ..terminal import connections as view
    from ..terminal import views

    ws = workspace()
    if check:
        if remove or project:
            raise UsageError("--check goes alone (it checks every connection of the tool)",
                             "e.g. conv connect --check, or conv connect qwen --check")
        found = connections.check(agent)
        views.emit(found, json_out, view.checks)
        if not all(c.ok for c in found.checked):
            raise typer.Exit(1)
        return
    if agent is None:
        if remove or project:
            raise UsageError("--remove and --project go with an agent", "e.g. conv connect claude-code --remove")
        return views.emit(connections.state(ws), json_out, view.connected)
    done = connections.change(ws, agent, remove, project)
    views.emit(done, json_out, view.changed)
    if any(c.done == "refused" for c in done.changes):
        raise typer.Exit(1)


@app.command(rich_help_panel=PANEL,
             epilog="Examples:\n\n  conv handoff --to claude-code      # the current one; then: claude --resume ID\n\n"
             "  conv handoff k3f9x2 --to codex     # then: codex resume ID\n\n"
             "  conv handoff --to gemini           # then: gemini --resume ID",
             help=f"Carry a conversation on in {tools.said('handoff', titles=True)}: it is written as a session "
                  "of the tool, in this folder's project, and the command that resumes it is printed. With the "
                  "tool connected (conv connect), what it says next comes back into the same conversation.")
def handoff(
    ref: Annotated[Optional[str], typer.Argument(help="Conversation (default: the current one).",
                                                 show_default=False)] = None,
    to: Annotated[str, typer.Option("--to", help=f"{tools.said('handoff')}.")] = ...,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    from ..services.handoff import hand_off
    from ..terminal import views

    views.emit(hand_off(workspace(), ref, to), json_out, views.handed_off)


@app.command(rich_help_panel=PANEL,
             epilog="Examples:\n\n  claude mcp add --scope user conv -- conv mcp\n\n"
             "  conv mcp    # then speak JSON-RPC on stdin (an MCP client does)")
def mcp() -> None:
    """The store as a Model Context Protocol server on stdio: tools search, show, list and origin (read-only,
    capped, secrets masked), for Claude Code, Codex or any MCP client. conv connect registers it."""
    from .run.mcp import run

    run()
