"""opencode: conv's hook is a plugin of conv's own, ``~/.config/opencode/
plugin/conv-capture.js`` (a project's ``.opencode/plugin/``), which opencode
loads at its start and calls on its events; on a session gone idle it hands
``conv capture opencode`` the session's id and folder on stdin, in a process
of its own, never waited for (read from opencode 1.18.33: every export of a
plugin must be a function; ``session.idle`` and ``session.status`` idle come
together, and are said once). With a plugin there, opencode installs its
plugin package from npm at its start; ``OPENCODE_PURE`` turns plugins off."""

from pathlib import Path

from ..contract import home as _home
from ..plugin_file import PluginSettings
from . import SOURCE

TEMPLATE = """// conv's capture of each opencode exchange: written by conv connect opencode (--remove takes it out)
import { spawn } from "node:child_process"

const COMMAND = {command};
const said = new Map()

export const ConvCapture = async ({ directory }) => ({
  event: async ({ event }) => {
    const idle = event.type === "session.idle" ||
      (event.type === "session.status" && event.properties?.status?.type === "idle")
    const session = idle ? event.properties?.sessionID : undefined
    if (!session || Date.now() - (said.get(session) ?? 0) < 2000) return
    said.set(session, Date.now())
    try {
      const child = spawn(COMMAND[0], COMMAND.slice(1), { cwd: directory, detached: true,
                                                         stdio: ["pipe", "ignore", "ignore"] })
      child.on("error", () => {})
      child.stdin.on("error", () => {})
      child.stdin.end(JSON.stringify({ session_id: session, cwd: directory }))
      child.unref()
    } catch {}
  },
})
"""


class OpencodeSettings(PluginSettings):
    program = "opencode"
    template = TEMPLATE

    def settings_file(self, project: Path | None) -> Path:
        return (project / ".opencode" if project is not None else self.installed()) / "plugin" / "conv-capture.js"

    def installed(self) -> Path:
        """The tool's own folder (conv's hook goes in a folder the tool does not make)."""
        return _home("XDG_CONFIG_HOME", "~/.config") / "opencode"


SETTINGS = OpencodeSettings(SOURCE, ("session.idle",))
