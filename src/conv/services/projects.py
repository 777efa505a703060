"""A project's conversations travelling with its code: ``conv push
--project`` puts the conversations of the work tree you stand in (those
``conv list --here`` shows) on ``refs/conv/NAME`` in the project's own
repository and pushes that ref forward to its remote; a teammate's ``conv
import --from project`` fetches everyone's, checks them at the ingest
boundary (importers/project.py) and brings them in through the store's one
writer. Opt-in each time: nothing is written into a project, or pushed,
unless asked."""

from ..errors import UsageError
from ..format.model import Conversation
from ..home import project
from ..importers import PROJECT
from ..importers.project import checked
from ..index import Filters
from ..records import dataclass, field, replace
from .redacting import Redacting
from .workspace import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..home.redaction import Report


@dataclass
class Published:
    conversations: int
    ref: str
    project: str
    remote: str | None  # None: kept in the project's repository only
    theirs: int = 0  # conversations the ref already held from elsewhere (another machine's push), kept
    forks: int = 0  # lines that met this machine's and did not continue it, kept beside it on the ref
    skipped: list = field(default_factory=list)  # what was not pushed, or was left out of the remote's ref
    moved: bool = True  # False: the ref held it all already, nothing was pushed

    def to_dict(self) -> dict:
        return {"conversations": self.conversations, "ref": self.ref, "project": self.project, "remote": self.remote,
                "kept_from_elsewhere": self.theirs, "forks": self.forks, "skipped": self.skipped,
                "pushed": self.moved}


@dataclass
class BroughtIn:
    refs: list[str]  # the names whose conversations were read
    added: int  # conversations new to this store
    turns: int  # turns added, to new and held conversations and to forks
    commit: str | None
    unfetched: str | None = None  # why the project's remote could not be fetched from: what the project held was read
    forks: list = field(default_factory=list)  # lines that did not continue the user's, kept as forks
    in_trash: list = field(default_factory=list)  # deleted conversations that got turns (still in the trash)
    skipped: list = field(default_factory=list)  # what of the refs was left out, one line each

    def to_dict(self) -> dict:
        return {"refs": self.refs, "added": self.added, "turns_added": self.turns, "commit": self.commit,
                "unfetched": self.unfetched, "forks": self.forks, "in_trash": self.in_trash, "skipped": self.skipped}


def publish(ws: Workspace, remote: str | None, path: str | None = None, force: bool = False) -> Published:
    """This work tree's conversations onto the user's side ref, what would give them away masked (the
    project's remote kept: teammates find the project by it); one holding a key held back unless ``force``."""
    root = _root(path, "conv push --project")
    conv_ids = [row.id for row in ws.index.refresh().recent(None, Filters(here=root))]
    masked = Redacting(ws).files(keep=_remote(root))
    done = ws.store.projects.publish(conv_ids, root, remote, checked, masked, force)  # none: the ref still loses
    return Published(done.mine, done.ref, root, done.remote, done.theirs, done.forks,  # what was deleted
                     done.held_back + done.said, done.moved)


def previewed(ws: Workspace, path: str | None = None) -> "Report":
    """What conv push --project would mask in this work tree's conversations, nothing written: shown before
    the first push, which waits for --yes."""
    root = _root(path, "conv push --project")
    redacting = Redacting(ws)
    masked = redacting.files(keep=_remote(root))
    for row in ws.index.refresh().recent(None, Filters(here=root)):
        masked(row.id, {path.rsplit("/", 1)[-1]: data for path, data in ws.store.raw_files(row.id, every=True)})
    return redacting.report


def _remote(root: str) -> tuple[str, ...]:
    """The project's remote, left whole (teammates find the project by it), unless it is a folder of this
    machine's (/home/ana/repos/app.git, file://…): that is the user's, masked as any."""
    remote = (project.here(root) or {}).get("remote")
    local = not remote or remote.startswith(("/", "~", ".", "file:", "\\")) or remote[1:3] in (":\\", ":/")
    return () if local else (remote,)


def first_push(ws: Workspace, path: str | None = None) -> bool:
    return not ws.store.projects.published_before(_root(path, "conv push --project"))


def bring_in(ws: Workspace, remote: str | None = None, path: str | None = None) -> BroughtIn:
    root = _root(path, "conv import --from project")

    def imported(conv):  # where it was asked is theirs; ``list --here`` finds it by this work tree
        return replace(conv, imported_from={"source": PROJECT, "id": conv.id, "cwd": root})

    masked = Redacting(ws).files(keep=_remote(root))

    def own(conv_id: str, files: dict[str, bytes]) -> dict[str, bytes]:
        """Of a conversation of this person's own, each file this store holds too, by name (a turn's name is
        its time and a random part): its own bytes again, however a push masked them (this machine, or
        another of this person's that knows another host name) or a ref's writer changed them: never a fork
        of one's own line. Of one a teammate's ref brought, only what is as this machine masks it (one's own
        turns in it): what they changed comes in as their line, a fork where it went apart."""
        if not ws.store.has(conv_id):
            return files
        stored = ws.store.raw_files(conv_id, every=True)
        here = {path.rsplit("/", 1)[-1]: data for path, data in stored}
        if (Conversation.from_text(stored[0][1].decode("utf-8", "replace")).imported_from or {}).get(
                "source") != PROJECT:
            return {n: here.get(n, data) for n, data in files.items()}
        pushed = masked(conv_id, here)
        return {n: here[n] if n in here and pushed.get(n) == data else data for n, data in files.items()}

    found = ws.store.projects.bring_in(root, remote, checked, imported, own)
    ws.index.refresh()
    done = found.done
    return BroughtIn(found.refs, len(done.added), done.turns, done.new, found.unfetched, done.forks, done.in_trash,
                     found.said)


def _root(path: str | None, command: str) -> str:
    root = project.root(path)
    if root is None:
        raise UsageError(f"{command} runs inside a git work tree", "cd into the project (or give its folder)")
    return root
