"""How ``conv connect`` reads: each tool and where conv's hook is, its MCP
server, what is wrong, the folders never captured and what the capture has
still to do; and what ``conv connect TOOL`` changed."""

from ..errors import then
from ..format.words import folder, plural
from .render import error, notice, plain, table, when

WHAT = {"added": "connected: conv's hook added to {file}", "updated": "connected: conv's hook updated in {file}",
        "put back": "connected: conv's hook put back in {file} (it had been taken out)",
        "already": "already connected ({file})", "removed": "disconnected: conv's hook taken out of {file}",
        "absent": "not connected ({file} has no hook of conv's)", "skipped": "passed over: {why}"}
CATCH_UP = ("sessions from before, and tools with no hook ({tools}): "
            "conv config set import.auto on takes them in, in the background")


def connected(state) -> None:
    """conv connect: a line a tool, its MCP server and what is wrong with it, then the rest."""
    rows = []
    for tool in state.tools:
        unreadable = any("conv cannot read it" in p for p in tool.problems)
        scope = f"connected for {', '.join(folder(p) for p in tool.projects)}" if tool.projects and \
            len(tool.projects) == len(tool.connected) else "connected"
        incomplete = any("incomplete" in p for p in tool.problems)
        rows.append([tool.tool, (scope + (", incomplete" if incomplete else "")) if tool.connected
                     else "settings unreadable" if unreadable
                     else "could be" if tool.present else "not on this machine",
                     ", ".join(folder(f) for f in tool.connected) or folder(tool.file)])
    table(["TOOL", "STATE", "SETTINGS"], rows)
    for tool in state.tools:
        for line in tool.mcp:
            where, _, said = line.partition(": ")
            plain(f"{tool.tool}: its MCP server conv, {folder(where)}: {said}")
        for problem in tool.problems:
            notice(f"{tool.tool}: {problem}")
    if state.never:
        plain(f"never captured: {', '.join(state.never)} (capture.never)")
    _backlog(state.backlog)
    plain(f"import.auto: {'on' if state.import_auto else 'off'}"
          + (f"; the background last worked {when(int(state.last_capture))}" if state.last_capture else ""))
    if not any(a.connected for a in state.tools):
        notice(f"connect one with: conv connect {' | '.join(a.tool for a in state.tools)} | all")


def _backlog(backlog) -> None:
    """What the capture has still to do: queued, failed (and how often tried), set aside."""
    if backlog.queued or backlog.aside:
        plain(f"capture: {plural(backlog.queued + backlog.aside, 'session')} waiting to be taken in")
    for failed in backlog.failed:
        notice(f"capture: the {failed['source']} session {folder(failed['session'])} failed "
               f"{plural(failed['tries'], 'time')}; it is tried again with the next capture "
               f"(conv import --from {failed['source']} takes it in now)")


def changed(done) -> None:
    """conv connect TOOL [--remove]: one line a tool; a refused one says why and what to do."""
    for change in done.changes:
        if change.done == "refused":
            error(then(f"{change.tool}: {change.file or 'its settings'} left as it is: {change.why}", change.hint))
            continue
        events = f" (runs on {', '.join(change.events)})" if change.events and \
            change.done not in ("already", "skipped") else ""
        before = f" ({change.why})" if change.why and change.done != "skipped" else ""
        plain(f"{change.tool}: {WHAT[change.done].format(file=change.file, why=change.why)}{before}{events}")
        if change.also:
            plain(f"{change.tool}: {change.also}")
    if done.unhooked and any(c.done not in ("refused", "skipped") for c in done.changes):
        notice(CATCH_UP.format(tools=", ".join(done.unhooked)))


def checks(done) -> None:
    """conv connect --check: one line a hook run, what it would lose said; a word when nothing is connected."""
    for check in done.checked:
        line = f"{check.tool}: {folder(check.file)}: {check.said}"
        plain(line) if check.ok else error(line)
    if not done.checked:
        notice(f"nothing to check: {', '.join(done.tools)} not connected (conv connect TOOL connects one)")
