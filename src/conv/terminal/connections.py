"""How ``conv connect`` reads: each agent and where conv's hook is, and what changed."""

from ..errors import then
from .render import error, notice, plain, table, when

WHAT = {"added": "connected: conv's hook added to {file}", "updated": "connected: conv's hook updated in {file}",
        "already": "already connected ({file})", "removed": "disconnected: conv's hook taken out of {file}",
        "absent": "not connected ({file} has no hook of conv's)"}
CATCH_UP = ("sessions from before, and tools with no hook (gptme, shell-gpt, aichat, llm): "
            "conv config set import.auto on takes them in, in the background")


def connected(state) -> None:
    """conv connect: a line an agent, what is wrong with any, then the catch-up and the last capture."""
    rows = []
    for tool in state.tools:
        unreadable = any("conv cannot read it" in p for p in tool.problems)
        rows.append([tool.tool, "connected" if tool.connected else "settings unreadable" if unreadable
                     else "could be" if tool.present else "not on this machine",
                     ", ".join(tool.connected) or tool.file])
    table(["TOOL", "STATE", "SETTINGS"], rows)
    for tool in state.tools:
        for problem in tool.problems:
            notice(f"{tool.tool}: {problem}")
    plain(f"import.auto: {'on' if state.import_auto else 'off'}"
          + (f"; the background last worked {when(int(state.last_capture))}" if state.last_capture else ""))
    if not any(a.connected for a in state.tools):
        notice("connect one with: conv connect claude-code (or codex, or all)")


def changed(done) -> None:
    """conv connect AGENT [--remove]: one line an agent; a refused one says why and what to do."""
    for change in done.changes:
        if change.done == "refused":
            error(then(f"{change.tool}: {change.file or 'its settings'} left as it is: {change.why}", change.hint))
            continue
        events = f" (runs on {', '.join(change.events)})" if change.events and change.done != "already" else ""
        before = f" ({change.why})" if change.why else ""
        plain(f"{change.tool}: {WHAT[change.done].format(file=change.file)}{before}{events}")
        if change.also:
            plain(f"{change.tool}: {change.also}")
    if not done.removing and not done.import_auto and any(c.done != "refused" for c in done.changes):
        notice(CATCH_UP)
