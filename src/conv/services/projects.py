"""A project's conversations travelling with its code: ``conv push
--project`` puts the conversations of the work tree you stand in (those
``conv list --here`` shows) on ``refs/conv/NAME`` in the project's own
repository and pushes that ref to its remote; a teammate's ``conv import
--from project`` fetches everyone's and adds what their store lacks. Opt-in
each time: nothing is written into a project, or pushed, unless asked."""

from ..errors import UsageError
from ..home import project
from ..importers import PROJECT
from ..index import Filters
from ..records import dataclass, replace
from .workspace import Workspace


@dataclass
class Published:
    conversations: int
    ref: str
    project: str
    remote: str | None  # None: kept in the project's repository only

    def to_dict(self) -> dict:
        return {"conversations": self.conversations, "ref": self.ref, "project": self.project, "remote": self.remote}


@dataclass
class BroughtIn:
    refs: list[str]  # the names whose conversations were read
    added: int  # conversations new to this store
    files: int  # turn files (and files sent with them) added
    commit: str | None
    unfetched: str | None = None  # why the project's remote could not be fetched from: what the project held was read

    def to_dict(self) -> dict:
        return {"refs": self.refs, "added": self.added, "files_added": self.files, "commit": self.commit,
                "unfetched": self.unfetched}


def publish(ws: Workspace, remote: str | None, path: str | None = None) -> Published:
    root = _root(path, "conv push --project")
    conv_ids = [row.id for row in ws.index.refresh().recent(None, Filters(here=root))]
    if not conv_ids:
        raise UsageError(f"no conversation of {root} to push",
                         "Ask something there first (conv list --here shows them)")
    ref, remote = ws.store.projects.publish(conv_ids, root, remote)
    return Published(len(conv_ids), ref, root, remote)


def bring_in(ws: Workspace, remote: str | None = None, path: str | None = None) -> BroughtIn:
    root = _root(path, "conv import --from project")
    found, unfetched = ws.store.projects.fetch(root, remote)

    def imported(conv):  # where it was asked is theirs; ``list --here`` finds it by this work tree
        return replace(conv, imported_from={"source": PROJECT, "id": conv.id, "cwd": root})

    commit, added, files = ws.store.projects.bring_in(
        list(found.values()), imported, f"import: conversations of {root} from {', '.join(found) or 'nobody'}")
    ws.index.refresh()
    return BroughtIn(sorted(found), added, files, commit, unfetched)


def _root(path: str | None, command: str) -> str:
    root = project.root(path)
    if root is None:
        raise UsageError(f"{command} runs inside a git work tree", "cd into the project (or give its folder)")
    return root
