"""``conv connect``: conv registered with the coding agents on this machine,
through each tool's own documented extension point (Claude Code's hooks in
its settings.json, Codex's ``notify`` in its config.toml), so that every
exchange they have is captured (services/capture.py) with no command typed.

Each tool's ``settings.py`` (in its folder under sources/) holds its
``SETTINGS``, a ``sources.contract.Settings``: where its settings are,
the settings text with conv's entries in or out (everything of the user's
kept; ``Unparsable`` when conv cannot read it), the conv capture lines it
holds (commands.py knows them), and ``conv mcp`` as the tool's MCP server
(user-wide, or for the project alone), the store to search.

This module keeps the record of what it changed (home/connected.py): the
file's bytes before, so that ``--remove`` puts them back byte for byte when
nothing else changed the file since; which tools the user connected, and
for which project only (nothing is captured for a tool or a project they did
not connect: a teammate's project settings naming conv do not suffice). The
record is written before the settings file, so that a record conv cannot
keep leaves the settings as they were. status.py reads it all back."""

from __future__ import annotations

import shlex
from pathlib import Path

from ..errors import ConvError
from ..home import connected as record
from ..records import dataclass, field
from . import exclude, files
from .commands import capture_command, capture_parts, server_command, this_store

AGAIN = "Change it by hand, or fix it and connect again"


class Unparsable(Exception):
    """A settings file conv cannot read: left as it is; the text says why."""


class Commented(Unparsable):
    """JSON settings with // or /* */ comments: conv would lose them writing the file back."""


@dataclass
class Change:
    """What ``connect`` did to one tool's settings (``done``: added, updated, put back, already, removed,
    absent, skipped, refused)."""

    tool: str
    file: str
    done: str
    why: str = ""  # refused: the reason; updated: whose hook it was before; skipped: why
    hint: str = ""  # refused: what to do
    events: list = field(default_factory=list)  # what the tool runs conv on
    also: str = ""  # what else was done (conv mcp registered with the tool's own command), one line

    def to_dict(self) -> dict:
        return {"tool": self.tool, "file": self.file, "done": self.done, "why": self.why, "hint": self.hint,
                "events": self.events, "also": self.also}


def connect(source, project: Path | None = None, only_present: bool = False) -> Change:
    """conv's entry into the settings of ``source`` (a sources.Source; user-wide,
    or ``project``'s own), kept by the user's. ``only_present``: a tool whose
    folder is not on this machine is passed over (``conv connect all``)."""
    module, name = source.settings(), source.name
    try:
        file = module.settings_file(project)
    except Unparsable as exc:
        return Change(name, "", "refused", str(exc), "connect it user-wide: leave out --project")
    if only_present and project is None and not module.present():
        on_path = f", no {module.program} on PATH" if module.program else ""
        return Change(name, str(file), "skipped",
                      f"{source.title} is not on this machine ({module.installed()} is missing{on_path})")
    try:
        before = files.read(file)
        text = before.decode("utf-8") if before is not None else None
        stores = [capture_parts(line, name)[0] for line in module.captures(text)]
        others = [store for store in stores if store != this_store()]
        try:
            after = files.same_endings(module.added(text, capture_command(name), server_command()), text).encode()
        except Unparsable:
            if not module.holds(text, capture_command(name), server_command()):
                raise  # merged in by hand where conv would not write (comments): connected, conv's record none
            return Change(name, str(file), "already", events=list(module.events),
                          also=module.register(server_command(), project))
        records = record.records()
        mine = records.setdefault(name, {}).get(str(file))
        done = ("already" if after == before else "put back" if mine and not stores
                else "updated" if mine or others else "added")
        entry = {"before": (mine or {}).get("before", files.encoded(before)), "after": files.digest(after),
                 "made": (mine or {}).get("made", files.missing(file)),
                 **({"project": str(project)} if project is not None else {})}
        if project is not None:
            entry["excluded"] = (mine or {}).get("excluded") or exclude.keep_out(project, file)
        if entry != mine:
            records[name][str(file)] = entry
            _save(records)  # first: a record conv cannot keep leaves the settings as they were
        if done != "already":
            _write(file, after, records, name, mine, 0o700 if module.executable else 0o600)
    except (Unparsable, UnicodeDecodeError) as exc:
        if isinstance(exc, Commented) and not module.allows_comments:
            return Change(name, str(file), "refused", reason(exc), f"{source.title} reads no comments there: the "
                          "file does not load, hooks and all. Take them out, then connect again")
        return Change(name, str(file), "refused", reason(exc), _by_hand(module, name))
    except ConvError as exc:
        return Change(name, str(file), "refused", exc.message, exc.hint)
    also_before = {f: (files.read(f), files.missing(f)) for f in module.also_written(project)}
    also = module.register(server_command(), project)
    _remember_also(records, name, also_before)
    return Change(name, str(file), done, f"it captured into {', '.join(others)} before" if others else "",
                  events=list(module.events), also=also)


def disconnect(source, project: Path | None = None) -> Change:
    """conv's entry out of ``source``'s settings: the file as it was before
    ``connect`` when nothing changed it since, else only conv's entries removed;
    a project's connection only (the user-wide one, MCP included, is another)."""
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
            if done == "removed" and mine is not None and mine.get("before") is None \
                    and module.leftover(after.decode("utf-8")):
                files.remove(file, mine.get("made") or [])  # conv's file, the tool's own marks alone added since
            elif done == "removed":
                files.write(file, after)
    except (Unparsable, UnicodeDecodeError) as exc:
        return Change(name, str(file), "refused", reason(exc), f"Take out by hand the hooks that run "
                      f"{shlex.join(capture_command(name))} (and conv's MCP server, named conv), or fix it and run "
                      "this again")
    except ConvError as exc:
        return Change(name, str(file), "refused", exc.message, exc.hint)
    records.get(name, {}).pop(str(file), None)
    given_back = _give_back_also(records, name, module.also_written(project))
    if not records.get(name):
        records.pop(name, None)
    try:
        _save(records)
    except ConvError as exc:
        return Change(name, str(file), done, exc.message)
    if project is not None and (mine or {}).get("excluded"):
        exclude.let_in(project, file)
    also = module.unregister(project) if mine is not None and not given_back else ""
    return Change(name, str(file), done, also=also)


def _remember_also(records: dict, name: str, before: dict) -> None:
    """What ``register`` changed of the files it writes besides the settings: their bytes before, for --remove."""
    changed = False
    for file, (data, made) in before.items():
        now = files.read(file)
        mine = records.get(name, {}).get(str(file))
        if now != data and now is not None:
            records.setdefault(name, {})[str(file)] = {
                "before": (mine or {}).get("before", files.encoded(data)), "after": files.digest(now),
                "made": (mine or {}).get("made", made), "also": True}
            changed = True
    if changed:
        try:
            _save(records)
        except ConvError:
            pass  # --remove then takes conv's entry out instead of giving the bytes back


def _give_back_also(records: dict, name: str, written: list) -> bool:
    """The files ``register`` wrote besides the settings, as they were, when nothing changed them since; whether
    any was (else ``unregister`` takes conv's entry out of them)."""
    given = False
    for file in written:
        mine = records.get(name, {}).pop(str(file), None)
        now = files.read(file) if mine else None
        if mine and now is not None and files.digest(now) == mine.get("after"):
            before = files.decoded(mine.get("before"))
            files.remove(file, mine.get("made") or []) if before is None else files.write(file, before)
            given = True
    return given


def _save(records: dict) -> None:
    try:
        record.save(records)
    except OSError as exc:
        raise ConvError(f"conv's state folder cannot be written ({exc.strerror or exc}): nothing changed",
                        f"Make {record.folder()} writable, then connect again") from None


def _write(file: Path, data: bytes, records: dict, name: str, mine: dict | None, mode: int) -> None:
    """The settings written (a new file with ``mode``); when they cannot be, the record as it was."""
    try:
        files.write(file, data, mode)
    except ConvError:
        if mine is None:
            records[name].pop(str(file), None)
        else:
            records[name][str(file)] = mine
        try:
            record.save(records)
        except OSError:
            pass
        raise


def _by_hand(module, name: str) -> str:
    """What to do with settings conv will not rewrite: the entry to merge in by hand, when it is JSON."""
    import json

    try:
        entry = json.dumps(json.loads(module.added(None, capture_command(name), server_command())),
                           ensure_ascii=False, separators=(", ", ": "))
    except (Unparsable, ConvError, ValueError):
        entry = None
    return f"Merge in by hand {entry}, or fix it and connect again" if entry else AGAIN


def reason(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "it is not UTF-8"
    return exc.message if isinstance(exc, ConvError) else str(exc)
