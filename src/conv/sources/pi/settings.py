"""pi: conv's hook is an extension of conv's own, ``~/.pi/agent/extensions/
conv-capture.ts`` (a project's ``.pi/extensions/``), which pi loads at its
start (TypeScript, through jiti: no build, no npm install) and calls on
``agent_end``, once a prompt's run is in the session file (read from pi
0.73.1); it hands ``conv capture pi`` the session's file and id on stdin,
in a process of its own, never waited for (pi awaits its handlers)."""

from pathlib import Path

from ..plugin_file import PluginSettings
from . import SOURCE, agent_home

TEMPLATE = """// conv's capture of each pi run: written by conv connect pi (conv connect pi --remove takes it out)
import { spawn } from "node:child_process";

const COMMAND = {command};

export default function (pi: any) {
  pi.on("agent_end", async (_event: any, ctx: any) => {
    const sessions = ctx.sessionManager;
    const handed = JSON.stringify({session_id: sessions.getSessionId(), session_file: sessions.getSessionFile() ?? null,
                                   cwd: ctx.cwd});
    try {
      const child = spawn(COMMAND[0], COMMAND.slice(1),
                          {cwd: ctx.cwd, detached: true, stdio: ["pipe", "ignore", "ignore"]});
      child.on("error", () => {});
      child.stdin?.on("error", () => {});
      child.stdin?.end(handed);
      child.unref();
    } catch {}
  });
}
"""


class PiSettings(PluginSettings):
    program = "pi"
    template = TEMPLATE

    def settings_file(self, project: Path | None) -> Path:
        return (project / ".pi" if project is not None else self.installed()) / "extensions" / "conv-capture.ts"

    def installed(self) -> Path:
        """The tool's own folder (conv's hook goes in a folder the tool does not make)."""
        return agent_home()


SETTINGS = PiSettings(SOURCE, ("agent_end",))
