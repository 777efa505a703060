"""``conv connect``: which coding agents hand their sessions to conv, and
changing that (the settings themselves: conv/connect/)."""

from pathlib import Path

from .. import connect as agents
from ..errors import UsageError
from ..home import project
from ..home.to_say import last_logged
from ..records import dataclass
from .workspace import Workspace


@dataclass
class Connected:
    """What ``conv connect`` with no agent shows: each agent's state, the catch-up's, the last capture."""

    agents: list
    import_auto: bool
    last_capture: float | None

    def to_dict(self) -> dict:
        return {"agents": [a.to_dict() for a in self.agents], "import_auto": self.import_auto,
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
    return Connected(agents.statuses(), bool(ws.config.get("import.auto")), last_logged())


def change(ws: Workspace, agent: str, remove: bool, here: bool) -> Changed:
    """Connect (or with ``remove`` disconnect) ``agent`` (``all``: each), user-wide or, ``here``, for this project."""
    where = _project() if here else None
    doing = agents.disconnect if remove else agents.connect
    return Changed([doing(name, where) for name in agents.chosen(agent)], remove, bool(ws.config.get("import.auto")))


def _project() -> Path:
    top = project.root()
    if top is None:
        raise UsageError("--project: the current folder is in no git work tree",
                         "cd into the project, or leave out --project to connect user-wide")
    return Path(top)
