"""``conv connect``: conv registered with the coding agents on this machine,
through each agent's own documented extension point (Claude Code's hooks in
its settings.json, Codex's ``notify`` in its config.toml), so that every
exchange they have is captured (services/capture.py) with no command typed.

Each agent is a small module with the same functions: ``settings_file``
(where its settings are), ``added(text, capture, server)`` and ``removed(text)``
(the settings text with conv's entries in or out, everything of the user's
kept; a ``Unparsable`` error when conv cannot read it), and ``registered``
and ``unregistered`` for what its own command registers (Claude Code's MCP
servers, which ``claude mcp add`` keeps apart from its settings). Besides the
capture, each agent gets ``conv mcp`` as an MCP server: the store to search. This module keeps the record
of what it changed (``state/connected.json``): the file's bytes before, so
that ``--remove`` puts them back byte for byte when nothing else changed the
file since, and which agents the user connected: nothing is captured for one
they did not (a teammate's project settings naming conv do not suffice);
home/connected.py keeps it."""

from __future__ import annotations

import base64
import hashlib
import importlib
import os
import sys
from pathlib import Path

from ..errors import UsageError
from ..home import connected as record
from ..records import dataclass, field

AGENTS = {"claude-code": "conv.connect.claude_code", "codex": "conv.connect.codex"}
ALL = "all"


class Unparsable(Exception):
    """A settings file conv cannot read: left as it is; the text says why."""


@dataclass
class Change:
    """What ``connect`` did to one agent's settings (``done``: added, updated, already, removed, absent, refused)."""

    agent: str
    file: str
    done: str
    why: str = ""  # refused: the reason, one line
    events: list = field(default_factory=list)  # what the agent runs conv on
    also: str = ""  # what else was done (conv mcp registered with the agent's own command), one line

    def to_dict(self) -> dict:
        return {"agent": self.agent, "file": self.file, "done": self.done, "why": self.why, "events": self.events,
                "also": self.also}


@dataclass
class Status:
    agent: str
    file: str  # its user-wide settings
    present: bool  # the agent's folder is on this machine
    connected: list  # the settings files holding conv's entry, as conv recorded them

    def to_dict(self) -> dict:
        return {"agent": self.agent, "file": self.file, "present": self.present, "connected": self.connected}


def agent_module(name: str):
    module = AGENTS.get(name)
    if module is None:
        raise UsageError(f"conv connects no agent called {name!r}", f"Use one of: {', '.join(AGENTS)}, {ALL}")
    return importlib.import_module(module)


def chosen(name: str) -> list[str]:
    if name == ALL:
        return list(AGENTS)
    agent_module(name)
    return [name]


def capture_command(agent: str) -> list[str]:
    """The command line an agent runs: this conv (by its full path, as the
    agent's PATH may differ) capturing from ``agent``, with this CONV_HOME."""
    where = [f"{k}={v}" for k, v in _home().items()]
    return [*(["env", *where] if where else []), *_program(), "capture", agent]


def server_command() -> dict:
    """``conv mcp`` as an agent's MCP configuration holds a server: command, args, env (this CONV_HOME)."""
    program = _program()
    return {"command": program[0], "args": [*program[1:], "mcp"], "env": _home()}


def _program() -> list[str]:
    beside = Path(sys.executable).parent / "conv"
    return [str(beside)] if beside.is_file() else [sys.executable, "-m", "conv"]


def _home() -> dict:
    home = os.environ.get("CONV_HOME")
    return {"CONV_HOME": os.path.abspath(os.path.expanduser(home))} if home else {}


def is_capture(argv: list[str], agent: str) -> bool:
    """Whether a command line is conv's capture from ``agent`` (an older conv's path or CONV_HOME too)."""
    return any(argv[i:i + 2] == ["capture", agent] for i in range(len(argv)))


def connect(agent: str, project: Path | None = None) -> Change:
    """conv's entry into ``agent``'s settings (user-wide, or ``project``'s own), kept by the user's."""
    module = agent_module(agent)
    try:
        file = module.settings_file(project)
    except Unparsable as exc:
        return Change(agent, "", "refused", str(exc))
    before = _read(file)
    try:
        after = module.added(before.decode("utf-8") if before is not None else None, capture_command(agent),
                             server_command())
    except (Unparsable, UnicodeDecodeError) as exc:
        return Change(agent, str(file), "refused", _why(exc))
    records = record.records()
    mine = records.setdefault(agent, {}).get(str(file))
    done = "already" if after.encode() == before else ("updated" if mine else "added")
    if done != "already":
        _write(file, after.encode())
    if mine is None or done != "already" or mine.get("after") != _digest(after.encode()):
        records[agent][str(file)] = {"before": (mine or {}).get("before", _encoded(before)),
                                     "after": _digest(after.encode())}
        record.save(records)
    return Change(agent, str(file), done, events=list(module.EVENTS), also=module.registered(server_command()))


def disconnect(agent: str, project: Path | None = None) -> Change:
    """conv's entry out of ``agent``'s settings: the file as it was before
    ``connect`` when nothing changed it since, else only conv's entry removed."""
    module = agent_module(agent)
    try:
        file = module.settings_file(project)
    except Unparsable as exc:
        return Change(agent, "", "refused", str(exc))
    records = record.records()
    mine = records.get(agent, {}).pop(str(file), None)
    now = _read(file)
    if mine is not None and now is not None and _digest(now) == mine.get("after"):
        before = _decoded(mine.get("before"))
        if before is None:
            _real(file).unlink()
        else:
            _write(file, before)
        done = "removed"
    elif now is None:
        done = "absent"
    else:
        try:
            after = module.removed(now.decode("utf-8"))
        except (Unparsable, UnicodeDecodeError) as exc:
            return Change(agent, str(file), "refused", _why(exc))
        done = "absent" if after.encode() == now else "removed"
        if done == "removed":
            _write(file, after.encode())
    if not records.get(agent):
        records.pop(agent, None)
    record.save(records)
    return Change(agent, str(file), done, also=module.unregistered() if mine is not None else "")


def statuses() -> list[Status]:
    records = record.records()
    out = []
    for agent in AGENTS:
        module = agent_module(agent)
        file = module.settings_file(None)
        out.append(Status(agent, str(file), file.parent.is_dir(), sorted(records.get(agent, {}))))
    return out


def _why(exc: Exception) -> str:
    return str(exc) if isinstance(exc, Unparsable) else "it is not UTF-8"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _encoded(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode()


def _decoded(text) -> bytes | None:
    return base64.b64decode(text) if isinstance(text, str) else None


def _real(file: Path) -> Path:
    """The file a settings path names, through links (a dotfiles manager's): it is changed, the link kept."""
    return Path(os.path.realpath(file))


def _read(file: Path) -> bytes | None:
    try:
        return _real(file).read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise UsageError(f"{file} is a folder, not a settings file", "Move it away, then connect again") from None


def _write(file: Path, data: bytes) -> None:
    """``data`` into the settings file whole (beside, then renamed over), its permissions kept."""
    real = _real(file)
    real.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = real.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o600
    tmp = real.with_name(f".{real.name}.conv-{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with open(fd, "wb") as out:
            out.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
