"""What one foreign tool's folder declares (``sources/<tool>/__init__.py``:
``SOURCE = Source(…)``, its name and title said there once) and the parts it
may hold, each a module with one object of a declared type:

- ``reader.py``: ``READER``, an ``importers.boundary.Reader`` (every source
  has one): its files as conversations, through the ingest boundary;
- ``settings.py``: ``SETTINGS``, a ``Settings``: what ``conv connect`` writes
  into the tool's own settings, and takes out again;
- ``hook.py``: ``HOOK``, a ``Hook``: what the tool's hook hands conv, and when
  the session it names has settled (services/capture.py, capture_worker.py);
- ``handoff.py``: ``HANDOFF``, a ``Handoff``: a conversation written as one of
  the tool's sessions (``conv handoff``).

A part is imported only when asked for: listing the sources costs no
reader's imports. ``check`` loads every part of a source and says what one
lacks (a part missing a function fails when its module is imported, not
when a hook first runs); tests/sources/ runs it over the registry."""

import importlib
import os
from abc import ABC, abstractmethod
from pathlib import Path

TYPE_CHECKING = False  # typing's, without importing typing: PEP 781's idiom
if TYPE_CHECKING:
    from .written import Written


class Settings(ABC):
    """conv's entries in a tool's settings (``conv connect``): the hook that
    hands each exchange over, and ``conv mcp`` as its MCP server. Every text
    function keeps everything of the user's; a file conv cannot read raises
    ``connect.Unparsable``."""

    events: tuple = ()  # what the tool runs conv's hook on, as it names them
    executable = False  # the settings file is itself the hook the tool runs (made owner-executable)
    allows_comments = False  # the tool reads // and /* */ comments in its JSON settings
    program: str = ""  # the tool's command: on PATH, the tool is on this machine before it made its folder

    @abstractmethod
    def settings_file(self, project: Path | None) -> Path:
        """Where its settings are: user-wide, or ``project``'s own."""

    @abstractmethod
    def added(self, text: str | None, command: list[str], server: dict) -> str:
        """``text`` with conv's hook (``command``) and MCP server in."""

    @abstractmethod
    def holds(self, text: str | None, command: list[str], server: dict) -> bool:
        """Whether ``text`` has conv's entries as ``added`` would write them."""

    @abstractmethod
    def removed(self, text: str) -> str:
        """``text`` with conv's entries out (as it is when there were none)."""

    def limit(self, text: str | None) -> float | None:
        """The seconds the tool lets conv's hook in ``text`` run before it kills it, read the strictest way a
        version of the tool reads it (None: none conv knows of). ``conv connect --check`` holds a hook to it."""
        return None

    def leftover(self, text: str) -> bool:
        """Whether ``text``, conv's entries taken out, holds nothing but what the tool writes into any file of
        its own accord: a file conv made is then removed by ``--remove`` (and its folder let back into git)."""
        return not text.strip()

    @abstractmethod
    def captures(self, text: str | None) -> list[list[str]]:
        """The conv capture lines ``text`` holds, each once."""

    @abstractmethod
    def register(self, server: dict, project: Path | None) -> str:
        """``conv mcp`` as its MCP server, where ``added`` does not put it; one line saying what was done."""

    def installed(self) -> Path:
        """The folder that says the tool is on this machine (its settings' folder, unless that is one conv's hook
        makes): ``conv connect all`` passes over a tool without it."""
        return self.settings_file(None).parent

    def present(self) -> bool:
        """Whether the tool is on this machine: its folder, or its command on PATH (installed, never run yet)."""
        import shutil

        return self.installed().exists() or bool(self.program and shutil.which(self.program))

    def also_written(self, project: Path | None) -> list[Path]:
        """Files ``register`` writes besides the settings (a tool's own MCP
        servers file): ``--remove`` gives them back byte for byte too, when
        nothing else changed them since."""
        return []

    @abstractmethod
    def unregister(self, project: Path | None) -> str:
        """``conv mcp`` out again, where ``removed`` does not take it; one line, or ""."""

    @abstractmethod
    def mcp(self, project: Path | None, server: dict) -> str:
        """What its MCP server named conv runs (connect/mcp_entry.described), or ""."""


class Hook(ABC):
    """What a tool's hook hands conv, and when the session it names can be read."""

    @abstractmethod
    def handed(self, args: list[str], stdin) -> dict | None:
        """What the tool handed over (None: not run as its hook is run)."""

    @abstractmethod
    def job(self, handed: dict) -> dict | None:
        """The capture's job: the session to read (None: no session to capture)."""

    @abstractmethod
    def session_file(self, job: dict) -> str | None:
        """The job's session file, when it is there."""

    def settled(self, job: dict, file: str) -> bool:
        """Whether the file holds the answer the job names (a hook that names
        none is read once its file has stayed as it is: capture_worker.QUIET)."""
        return True


class Handoff(ABC):
    """A conversation written as one of the tool's sessions, which it resumes."""

    @abstractmethod
    def write(self, turns: list, cwd: str, title: str) -> "Written":
        """The session: its id, its file, the command that resumes it."""

    @abstractmethod
    def resume(self, session: str) -> list[str]:
        """The command line that resumes the tool's session ``session`` (its own, or one written here)."""


def _reader_type():
    from ..importers.boundary import Reader

    return Reader


PARTS = {"reader": ("READER", _reader_type), "settings": ("SETTINGS", lambda: Settings),
         "hook": ("HOOK", lambda: Hook), "handoff": ("HANDOFF", lambda: Handoff)}


class Source:
    def __init__(self, name: str, title: str, package: str, parts: tuple = ("reader",)):
        unknown = set(parts) - set(PARTS)
        assert not unknown and "reader" in parts, unknown
        self.name = name  # as conv import --from, --source, conv connect and conv handoff --to say it
        self.title = title  # as the tool calls itself
        self.package = package
        self.parts = parts

    def __repr__(self) -> str:
        return f"Source({self.name!r})"

    def offers(self, part: str) -> bool:
        return part in self.parts

    def part(self, part: str):
        """The object of its ``part`` (its module's READER, SETTINGS, HOOK or HANDOFF)."""
        assert part in self.parts, (self.name, part)
        return getattr(importlib.import_module(f"{self.package}.{part}"), PARTS[part][0])

    def reader(self):
        """Its ``importers.boundary.Reader``."""
        return self.part("reader")

    def settings(self) -> Settings:
        return self.part("settings")

    def hook(self) -> Hook:
        return self.part("hook")

    def handoff(self) -> Handoff:
        return self.part("handoff")


def check(source: Source) -> list[str]:
    """What ``source``'s folder lacks, one line each ([]: every part it declares
    is there, of its type, naming the source as the folder does)."""
    lacking = []
    for part in source.parts:
        name, kind = PARTS[part]
        try:
            found = source.part(part)
        except (ImportError, AttributeError, TypeError) as exc:  # TypeError: an abstract function left out
            lacking.append(f"{source.name}: its {part} cannot be loaded ({exc})")
            continue
        if not isinstance(found, kind()):
            lacking.append(f"{source.name}: its {part}.{name} is a {type(found).__name__}, not a {kind().__name__}")
        elif part == "reader" and found.source != source.name:
            lacking.append(f"{source.name}: its reader names itself {found.source!r}")
    return lacking


def home(variable: str, default: str) -> Path:
    """A tool's own folder: where the variable it reads moves it, else its default."""
    return Path(os.environ.get(variable) or default).expanduser()
