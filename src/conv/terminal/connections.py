"""How ``conv connect`` reads: each agent and where conv's hook is, and what changed."""

from .render import error, notice, plain, table, when

WHAT = {"added": "connected: conv's hook added to {file}", "updated": "connected: conv's hook updated in {file}",
        "already": "already connected ({file})", "removed": "disconnected: conv's hook taken out of {file}",
        "absent": "not connected ({file} has no hook of conv's)"}
CATCH_UP = ("sessions from before, and tools with no hook (gptme, shell-gpt, aichat): "
            "conv config set import.auto on takes them in, in the background")


def connected(state) -> None:
    """conv connect: a line an agent, then the catch-up and the last capture."""
    rows = []
    for agent in state.agents:
        rows.append([agent.agent, "connected" if agent.connected else "could be" if agent.present
                     else "not on this machine", ", ".join(agent.connected) or agent.file])
    table(["AGENT", "STATE", "SETTINGS"], rows)
    plain(f"import.auto: {'on' if state.import_auto else 'off'}"
          + (f"; last capture {when(int(state.last_capture))}" if state.last_capture else ""))
    if not any(a.connected for a in state.agents):
        notice("connect one with: conv connect claude-code (or codex, or all)")


def changed(done) -> None:
    """conv connect AGENT [--remove]: one line an agent; a refused one says why and what to do."""
    for change in done.changes:
        if change.done == "refused":
            error(f"{change.agent}: {change.file or 'its settings'} left as it is: {change.why}. Change it by hand, "
                  "or fix it and connect again")
        else:
            plain(f"{change.agent}: {WHAT[change.done].format(file=change.file)}"
                  + (f" (runs on {', '.join(change.events)})" if change.events and change.done != "already" else ""))
            if change.also:
                plain(f"{change.agent}: {change.also}")
    if not done.removing and not done.import_auto and any(c.done != "refused" for c in done.changes):
        notice(CATCH_UP)
