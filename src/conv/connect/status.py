"""``conv connect`` with no tool: each tool as its own settings say, not as
conv remembers: where conv's hook is (user-wide, for which projects), what
its MCP server named conv runs, and what is wrong (a hook taken out, another
store's, a file conv cannot read)."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConvError
from ..home import connected as record
from ..records import dataclass, field
from . import Unparsable, files, reason
from .commands import capture_command, capture_parts, server_command, this_store


@dataclass
class Status:
    tool: str
    file: str  # its user-wide settings
    present: bool  # the tool's folder is on this machine (Settings.installed)
    connected: list  # the settings files holding conv's entry for this store
    projects: list = field(default_factory=list)  # the projects it is connected for alone
    mcp: list = field(default_factory=list)  # "where: what its MCP server named conv runs", one each
    problems: list = field(default_factory=list)  # one line each: a hook gone, another store's, a file unreadable

    def to_dict(self) -> dict:
        return {"tool": self.tool, "file": self.file, "present": self.present, "connected": self.connected,
                "projects": self.projects, "mcp": self.mcp, "problems": self.problems}


def statuses(sources: list) -> list[Status]:
    records = record.records()
    return [_status(source, records.get(source.name, {})) for source in sources]


def _status(source, records: dict) -> Status:
    module, name = source.settings(), source.name
    file = module.settings_file(None)
    held, problems = [], []
    for recorded in sorted({*(f for f, entry in records.items() if not entry.get("also")), str(file)}):
        try:
            data = files.read(Path(recorded))
            text = data.decode("utf-8") if data is not None else None
            lines = module.captures(text)
        except (Unparsable, UnicodeDecodeError, ConvError) as exc:
            problems.append(f"{recorded}: conv cannot read it ({reason(exc)})")
            continue
        stores = {capture_parts(line, name)[0] for line in lines}
        if this_store() in stores:
            held.append(recorded)
            if not module.holds(text, capture_command(name), server_command()):
                problems.append(f"{recorded}: conv's entries are incomplete or run another conv "
                                f"(conv connect {name} puts them right)")
        elif stores:
            problems.append(f"{recorded}: its hook captures into {', '.join(sorted(stores))}")
        elif recorded in records:
            problems.append(f"{recorded}: conv's hook was taken out (conv connect {name} puts it back)")
    projects = sorted({entry["project"] for entry in records.values()
                       if isinstance(entry, dict) and isinstance(entry.get("project"), str)})
    mcp = [f"{where}: {said}" for where, project in (("user-wide", None), *((p, Path(p)) for p in projects))
           if (said := module.mcp(project, server_command()))]
    return Status(name, str(file), module.present(), held, projects, mcp, problems)
