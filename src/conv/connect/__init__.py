"""``conv connect``: conv registered with the coding agents on this machine,
through each tool's own documented extension point (Claude Code's hooks in
its settings.json, Codex's ``notify`` in its config.toml), so that every
exchange they have is captured (services/capture.py) with no command typed.

Each tool's ``settings.py`` (in its folder under sources/) has the same
functions: ``settings_file`` (where its settings are), ``added(text,
capture, server)`` and ``removed(text)`` (the settings text with conv's
entries in or out, everything of the user's kept; a ``Unparsable`` error
when conv cannot read it), ``captures(text)`` (the conv capture lines it
holds: commands.py knows them), and ``registered`` and ``unregistered`` for
what its own command registers (Claude Code's MCP servers, which ``claude
mcp add`` keeps apart from its settings). Besides the capture, each tool
gets ``conv mcp`` as an MCP server: the store to search. This module keeps
the record of what it changed (``state/connected.json``): the file's bytes
before, so that ``--remove`` puts them back byte for byte when nothing else
changed the file since, and which tools the user connected: nothing is
captured for one they did not (a teammate's project settings naming conv
do not suffice); home/connected.py keeps it."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConvError
from ..home import connected as record
from ..records import dataclass, field
from . import files
from .commands import capture_command, capture_parts, server_command, this_store

AGAIN = "Change it by hand, or fix it and connect again"


class Unparsable(Exception):
    """A settings file conv cannot read: left as it is; the text says why."""


@dataclass
class Change:
    """What ``connect`` did to one tool's settings (``done``: added, updated, already, removed, absent, refused)."""

    tool: str
    file: str
    done: str
    why: str = ""  # refused: the reason; updated: whose hook it was before
    hint: str = ""  # refused: what to do
    events: list = field(default_factory=list)  # what the tool runs conv on
    also: str = ""  # what else was done (conv mcp registered with the tool's own command), one line

    def to_dict(self) -> dict:
        return {"tool": self.tool, "file": self.file, "done": self.done, "why": self.why, "hint": self.hint,
                "events": self.events, "also": self.also}


@dataclass
class Status:
    tool: str
    file: str  # its user-wide settings
    present: bool  # the tool's folder is on this machine
    connected: list  # the settings files holding conv's entry for this store
    problems: list = field(default_factory=list)  # one line each: a hook gone, another store's, a file unreadable

    def to_dict(self) -> dict:
        return {"tool": self.tool, "file": self.file, "present": self.present, "connected": self.connected,
                "problems": self.problems}


def connect(source, project: Path | None = None) -> Change:
    """conv's entry into the settings of ``source`` (a sources.Source; user-wide, or ``project``'s own), kept by the
    user's."""
    module, name = source.settings(), source.name
    try:
        file = module.settings_file(project)
    except Unparsable as exc:
        return Change(name, "", "refused", str(exc), "connect it user-wide: leave out --project")
    try:
        before = files.read(file)
        text = before.decode("utf-8") if before is not None else None
        others = [store for line in module.captures(text) if (store := capture_parts(line, name)[0]) != this_store()]
        after = files.same_endings(module.added(text, capture_command(name), server_command()), text).encode()
        records = record.records()
        mine = records.setdefault(name, {}).get(str(file))
        done = "already" if after == before else ("updated" if mine or others else "added")
        made = files.write(file, after) if done != "already" else []
    except (Unparsable, UnicodeDecodeError) as exc:
        return Change(name, str(file), "refused", _why(exc), AGAIN)
    except ConvError as exc:
        return Change(name, str(file), "refused", exc.message, exc.hint)
    if mine is None or done != "already":
        records[name][str(file)] = {"before": (mine or {}).get("before", files.encoded(before)),
                                     "after": files.digest(after), "made": (mine or {}).get("made", made)}
        record.save(records)
    if project is not None:
        _kept_out_of_git(project, file, True)
    return Change(name, str(file), done, f"it captured into {', '.join(others)} before" if others else "",
                  events=list(module.EVENTS), also=module.registered(server_command()))


def disconnect(source, project: Path | None = None) -> Change:
    """conv's entry out of ``source``'s settings: the file as it was before
    ``connect`` when nothing changed it since, else only conv's entries removed."""
    module, name = source.settings(), source.name
    try:
        file = module.settings_file(project)
    except Unparsable as exc:
        return Change(name, "", "refused", str(exc), "it was never connected for a project")
    records = record.records()
    mine = records.get(name, {}).get(str(file))
    try:
        now = files.read(file)
        if mine is not None and now is not None and files.digest(now) == mine.get("after"):
            before = files.decoded(mine.get("before"))
            files.remove(file, mine.get("made") or []) if before is None else files.write(file, before)
            done = "removed"
        elif now is None:
            done = "absent"
        else:
            after = files.same_endings(module.removed(now.decode("utf-8")), now.decode("utf-8")).encode()
            done = "absent" if after == now else "removed"
            if done == "removed":
                files.write(file, after)
    except (Unparsable, UnicodeDecodeError) as exc:
        return Change(name, str(file), "refused", _why(exc), AGAIN)
    except ConvError as exc:
        return Change(name, str(file), "refused", exc.message, exc.hint)
    records.get(name, {}).pop(str(file), None)
    if not records.get(name):
        records.pop(name, None)
    record.save(records)
    if project is not None:
        _kept_out_of_git(project, file, False)
    return Change(name, str(file), done, also=module.unregistered() if mine is not None else "")


def statuses(sources: list) -> list[Status]:
    """Each of ``sources`` as its settings files say, not as conv remembers: a hook
    taken out, or repointed to another store, is said."""
    records = record.records()
    out = []
    for source in sources:
        module, name = source.settings(), source.name
        file = module.settings_file(None)
        held, problems = [], []
        for recorded in sorted({*records.get(name, {}), str(file)}):
            try:
                data = files.read(Path(recorded))
                lines = module.captures(data.decode("utf-8") if data is not None else None)
            except (Unparsable, UnicodeDecodeError, ConvError) as exc:
                problems.append(f"{recorded}: conv cannot read it ({_why(exc)})")
                continue
            stores = {capture_parts(line, name)[0] for line in lines}
            if this_store() in stores:
                held.append(recorded)
                if not module.holds(data.decode("utf-8"), capture_command(name), server_command()):
                    problems.append(f"{recorded}: conv's entries are incomplete or run another conv "
                                    f"(conv connect {name} puts them right)")
            elif stores:
                problems.append(f"{recorded}: its hook captures into {', '.join(sorted(stores))}")
            elif recorded in records.get(name, {}):
                problems.append(f"{recorded}: conv's hook was taken out (conv connect {name} puts it back)")
        out.append(Status(name, str(file), file.parent.is_dir(), held, problems))
    return out


def _why(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "it is not UTF-8"
    return exc.message if isinstance(exc, ConvError) else str(exc)


def _kept_out_of_git(project: Path, file: Path, keep_out: bool) -> None:
    """A project's settings file that names this machine's conv, in the
    project's own .git/info/exclude (never in a file the project shares)."""
    from ..home.project import excludes

    found = excludes(str(project))
    if found is None:
        return
    try:
        exclude = Path(found)
        line = "/" + str(file.relative_to(project))
        lines = exclude.read_text().splitlines() if exclude.exists() else []
        if keep_out and line not in lines:
            exclude.parent.mkdir(parents=True, exist_ok=True)
            exclude.write_text("\n".join([*lines, line]) + "\n")
        elif not keep_out and line in lines:
            exclude.write_text("".join(f"{kept}\n" for kept in lines if kept != line))
    except (OSError, ValueError):
        pass  # an exclude file conv cannot write: git status shows the settings file; nothing else is wrong
