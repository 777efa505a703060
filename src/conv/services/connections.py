"""``conv connect``: which coding agents hand their sessions to conv, and
changing that (the settings themselves: connect/, and each tool's
settings.py under sources/)."""

from pathlib import Path

from .. import connect as connecting
from .. import sources
from ..connect.status import statuses
from ..errors import ConvError, UsageError
from ..home import project
from ..home.to_say import last_logged
from ..records import dataclass
from . import catch_up
from .capture import backlog
from .workspace import Workspace

ALL = "all"


@dataclass
class Connected:
    """What ``conv connect`` with no tool shows: each tool's state, the folders never captured, what the capture
    has still to do, the catch-up's state, the last capture."""

    tools: list
    never: list
    backlog: object
    import_auto: bool
    last_capture: float | None

    def to_dict(self) -> dict:
        return {"tools": [a.to_dict() for a in self.tools], "never": self.never, "backlog": self.backlog.to_dict(),
                "import_auto": self.import_auto, "last_capture": self.last_capture}


@dataclass
class Changed:
    changes: list
    removing: bool
    import_auto: bool
    unhooked: list  # the tools only import.auto brings in (catch_up.unhooked); [] once said

    def to_dict(self) -> dict:
        return {"changes": [c.to_dict() for c in self.changes], "removing": self.removing,
                "import_auto": self.import_auto, "unhooked": self.unhooked}


def state(ws: Workspace) -> Connected:
    return Connected(statuses(sources.every("settings")), list(_setting(ws, "capture.never") or ()), backlog(),
                     bool(_setting(ws, "import.auto")), last_logged())


@dataclass
class Checks:
    checked: list  # connect/check.Checked, one a capture line of a connected tool
    tools: list  # the tools looked at

    def to_dict(self) -> dict:
        return {"checked": [c.to_dict() for c in self.checked], "tools": self.tools}


def check(tool: str | None) -> Checks:
    """Each connected tool's hook (``tool``'s alone, when given) run as the tool runs it (connect/check.py)."""
    from ..connect.check import checked

    chosen = sources.every("settings") if tool in (None, ALL) else _chosen(tool)
    return Checks([c for source, status in zip(chosen, statuses(chosen)) for c in checked(source, status)],
                  [source.name for source in chosen])


def change(ws: Workspace, tool: str, remove: bool, here: bool) -> Changed:
    """Connect (or with ``remove`` disconnect) ``tool`` (``all``: each on this
    machine), user-wide or, ``here``, for this project alone."""
    where = _project() if here else None
    if remove:
        done = [connecting.disconnect(source, where) for source in _chosen(tool)]
    else:
        done = [connecting.connect(source, where, only_present=tool == ALL) for source in _chosen(tool)]
    auto = bool(_setting(ws, "import.auto"))
    worked = any(c.done not in ("refused", "skipped") for c in done)
    if worked and auto and not remove:
        catch_up.now()  # its sessions from before, now rather than in a minute
    hint = worked and not remove and not auto and _first_hint()
    return Changed(done, remove, auto, catch_up.unhooked() if hint else [])


def _first_hint() -> bool:
    """Whether conv connect has yet to say what import.auto would take in (said once: after each tool it
    was the same line again). Noted in the state folder; where it cannot be, said."""
    from ..home import paths

    said = paths.state_dir() / "said-import-auto"
    if said.exists():
        return False
    try:
        said.parent.mkdir(parents=True, exist_ok=True)
        said.touch()
    except OSError:
        pass
    return True


def _setting(ws: Workspace, key: str):
    try:
        return ws.config.get(key)
    except ConvError:
        return None  # a config conv cannot read: said by the command's own start


def _chosen(tool: str) -> list:
    if tool == ALL:
        return sources.every("settings")
    return [sources.named(tool, "settings", "conv connects no tool called {name!r}", more=(ALL,))]


def _project() -> Path:
    top = project.root()
    if top is None:
        raise UsageError("--project: the current folder is in no git work tree",
                         "cd into the project, or leave out --project to connect user-wide")
    return Path(top)
