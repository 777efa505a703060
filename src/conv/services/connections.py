"""``conv connect``: which coding agents hand their sessions to conv, and
changing that (the settings themselves: connect/, and each tool's
settings.py under sources/)."""

from pathlib import Path

from .. import connect as connecting
from .. import sources
from ..errors import UsageError
from ..home import project
from ..home.to_say import last_logged
from ..records import dataclass
from .workspace import Workspace

ALL = "all"


@dataclass
class Connected:
    """What ``conv connect`` with no agent shows: each agent's state, the catch-up's, the last capture."""

    tools: list
    import_auto: bool
    last_capture: float | None

    def to_dict(self) -> dict:
        return {"tools": [a.to_dict() for a in self.tools], "import_auto": self.import_auto,
                "last_capture": self.last_capture}


@dataclass
class Changed:
    changes: list
    removing: bool
    import_auto: bool

    def to_dict(self) -> dict:
        return {"changes": [c.to_dict() for c in self.changes], "removing": self.removing,
                "import_auto": self.import_auto}


def state(ws: Workspace) -> Connected:
    return Connected(connecting.statuses(sources.every("settings")), bool(ws.config.get("import.auto")), last_logged())


def change(ws: Workspace, tool: str, remove: bool, here: bool) -> Changed:
    """Connect (or with ``remove`` disconnect) ``tool`` (``all``: each), user-wide or, ``here``, for this project."""
    where = _project() if here else None
    doing = connecting.disconnect if remove else connecting.connect
    return Changed([doing(source, where) for source in _chosen(tool)], remove, bool(ws.config.get("import.auto")))


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
