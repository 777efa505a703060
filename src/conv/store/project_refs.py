"""A project's conversations kept in the project's own repository, on a side
ref each person writes (``refs/conv/NAME``, NAME their git e-mail): never a
branch anyone checks out, not fetched by a plain clone or fetch, pushed to
the project's remote only by ``conv push --project``; ``conv import --from
project`` brings everyone's in. conv's notes on the project's commits
(``refs/notes/conv``, conv origin --note) travel with them.

A push replaces the ref with one commit of what it holds now, no history
(side_refs.py), but loses nothing: the ref as the remote has it now is
fetched and checked, what it holds that this store does not (another
machine's push under the same name) is kept, lines that went apart are kept
apart (publishing.py), and it is pushed only over what was fetched; if the
remote moved meanwhile, it is all done again. What this store published is
kept per project (``refs/conv-published/KEY/NAME``): one project's push
never carries another's.

A teammate's ref is untrusted input: its files are listed and read in the
project's repository, checked (``check``: importers/project.py) and only
what passes comes into the store, through the one writer (ingest.py). What
was brought in of each ref is kept as a commit of its own
(``refs/conv-project/NAME``): the base the next import of it meets the
user's lines against, as sync uses its tracking ref."""

from collections.abc import Callable

from ..errors import SyncError, UsageError
from ..format.model import META_FILE, Conversation
from ..records import dataclass, field
from .incoming import Incoming
from .ingest import Ingested, ingest
from .merge import side
from .publishing import FETCHED, OWN, PUBLISHED, Masked, composed, image
from .repo import side_refs, work_tree
from .repo.git import GitStore

ATTEMPTS = 5  # fetch, merge and push again this often while the remote keeps moving

Check = Callable[[str, list, Callable[[list[str]], dict[str, bytes]]], tuple[dict[str, dict[str, bytes]], list[str]]]


@dataclass
class Pushed:
    ref: str
    remote: str | None  # None: kept in the project's repository only
    mine: int = 0  # this machine's conversations on the ref
    theirs: int = 0  # conversations the ref held from elsewhere (another machine's push), kept
    forks: int = 0  # lines that met this machine's and did not continue it, kept beside it
    held_back: list = field(default_factory=list)  # conversations not pushed (a key in them), one line each
    said: list = field(default_factory=list)  # what of the remote's ref was left out, one line each
    moved: bool = True  # False: the ref held it all already, nothing was pushed


@dataclass
class BroughtIn:
    refs: list = field(default_factory=list)  # the names whose conversations were read
    done: Ingested = field(default_factory=Ingested)
    said: list = field(default_factory=list)  # what was left out, one line each
    unfetched: str | None = None  # why the remote could not be fetched from: what the project held was read


class ProjectRefs:
    def __init__(self, git: GitStore):
        self.git = git

    def published_before(self, project: str) -> bool:
        """Whether this store has pushed the conversations of ``project`` under this person's name before."""
        return self.git.storage.ref(_published(project, side_refs.side_name(project))) is not None

    def publish(self, conv_ids: list[str], project: str, remote: str | None, check: Check,
                masked: Masked | None = None, force: bool = False) -> Pushed:
        """``conv_ids`` as they are now on ``refs/conv/NAME`` in the ``project``
        repository, as ``masked`` gives them, on top of what the remote holds
        there (publishing.py), then pushed to the project's remote (``remote``,
        else its origin or only one; none: not pushed); ``force``: one holding
        a key too."""
        name, remote = side_refs.side_name(project), side_refs.remote_of(project, remote)
        ref = f"{side_refs.SIDE}{name}"
        teammates = _teammates_turns(project, remote, ref)
        for _ in range(ATTEMPTS):
            problem, said = side_refs.mirror(project, remote, name)
            if problem:
                raise SyncError(problem, f"Is the remote reachable? git -C {project} remote -v shows it")
            after = side_refs.listed(project).get(ref)
            if not conv_ids and after is None:
                raise UsageError(f"no conversation of {project} to push",
                                 "Ask something there first (conv list --here shows them)")
            theirs, checked = (check(ref, side_refs.tree(project, after), lambda shas: side_refs.blobs(project, shas))
                               if after else ({}, []))
            out = Pushed(ref, remote, said=said + checked)
            placed, own = composed(self.git, conv_ids, theirs, name, out, masked, force,
                                   self.git.storage.ref(_published(project, name, OWN)), teammates)
            if not placed and after is None:  # every one held back: no empty ref goes out
                out.moved = False
                return out
            message = "conv: this project's conversations"  # no folder name: it may hold a login
            made = self.git.side_commit(_published(project, name), placed, message)
            out.moved = side_refs.place(str(self.git.path), made, project, name, after, message) != after
            if remote is None or not out.moved or side_refs.push(project, remote, name, after):
                self.git.side_commit(_published(project, name, OWN), own, "conv: this machine's part of it")
                out.said += _notes(project, remote, push=True)
                return out
        raise SyncError(f"{ref} on {remote} kept moving while conv pushed", "Run it again")

    def bring_in(self, project: str, remote: str | None, check: Check,
                 imported: Callable[[Conversation], Conversation], own: Masked | None = None) -> BroughtIn:
        """Everyone's side refs of ``project`` (fetched from ``remote``, else its
        origin or only one) checked and brought into the branch: new
        conversations (their conversation.md as ``imported`` makes it over),
        lines that continue the user's, and forks of those that do not."""
        remote = side_refs.remote_of(project, remote)
        unfetched, said = side_refs.mirror(project, remote)
        out = BroughtIn(unfetched=unfetched, said=said + ([] if unfetched else _notes(project, remote, push=False)))
        refs = side_refs.listed(project)
        if not refs and out.unfetched:
            raise SyncError(out.unfetched, f"Is the remote reachable? git -C {project} remote -v shows it")
        incoming, images = [], {}
        for ref, commit in sorted(refs.items()):
            name = ref[len(side_refs.SIDE):]
            try:
                entries = side_refs.tree(project, commit)
            except SyncError:  # a ref to a blob or a tag: no conversation of anyone's
                out.said.append(f"{ref}: not a commit conv push --project writes; left out")
                continue
            folders, said = check(ref, entries, lambda shas: side_refs.blobs(project, shas))
            out.refs.append(name)
            out.said += said
            last = self.git.storage.ref(f"{FETCHED}{name}")
            base = self.git.snapshot(last) if last else None
            for conv_id, files in folders.items():
                files = own(conv_id, files) if own else files  # this store's own lines as they are here
                files[META_FILE] = imported(Conversation.from_text(files[META_FILE].decode())).to_text().encode()
                was = side(base, conv_id) if base else None
                incoming.append(Incoming(conv_id, files, was.files if was else None))
            images[name] = folders

        def message(done: Ingested) -> str:
            forks = f", {len(done.forks)} line(s) apart in forks" if done.forks else ""
            return f"import: conversations of {project} from {', '.join(out.refs)}{forks}"

        out.done = ingest(self.git, incoming, message, trusted=False)
        snap = self.git.snapshot()
        for name, folders in images.items():  # the base of the next import: only once the branch has it all
            self.git.side_commit(f"{FETCHED}{name}", image(folders, snap), f"conv: what was brought in of {name}")
        return out


def _teammates_turns(project: str, remote: str | None, mine: str) -> set[str]:
    """The turn files (blob ids) on everyone else's side refs of ``project``, fetched now: what of a
    conversation is a teammate's, however it came into this store (an import here, or another machine's
    import and a ``conv sync``), and so never pushed under this person's name."""
    side_refs.mirror(project, remote)  # (unreachable: the copies the project holds; the push says so next)
    return {entry.sha for ref, commit in side_refs.listed(project).items() if ref != mine
            for entry in _entries(project, commit) if entry.path.endswith(".md")
            and not entry.path.endswith("/" + META_FILE)}


def _entries(project: str, commit: str) -> list:
    try:
        return side_refs.tree(project, commit)
    except SyncError:  # a ref to a blob: nobody's conversations
        return []


def _published(project: str, name: str, kind: str = PUBLISHED) -> str:
    """The store's ref of what it last published of ``project`` under ``name`` (``OWN``: of its own)."""
    return f"{kind}{side_refs.project_key(project)}/{name}"


def _notes(project: str, remote: str | None, push: bool) -> list[str]:
    """conv's notes on the project's commits (conv origin --note) carried with the side refs: what went wrong."""
    problem = work_tree.carry_notes(project, remote, push)
    return [problem] if problem else []
