"""``conv import``: other tools' conversations into the store. What the
tools wrote passes the ingest boundary (importers/boundary.py) and is written
by the store's one writer of what comes from outside (``Store.ingest``), so
a second import adds only what is new, a session that grew after a
follow-up asked in conv goes on in a fork, and nothing deleted or purged
comes back to life.

The way of one import, in order: the files are read (by worker processes
when there are many), and each file's conversations, as they come, are
taken (``Taking``: the ones to keep, matched to the store where the tool
keeps no ids, made conv's conversations and turns, keys held out, a
hand-off's session joined to its conversation); then all of them are
written in one commit, and the files read whole are remembered."""

import os
from pathlib import Path

from .. import importers, sources
from ..errors import ConvError, UsageError
from ..format.model import META_FILE, Conversation, Turn
from ..format.turn_files import attach, classified
from ..format.words import plural
from ..home import imports, progress
from ..home.key_shapes import key_shaped
from ..home.project import here
from ..importers.boundary import dated_from
from ..importers.by_text import continue_stored
from ..records import dataclass, field, replace
from ..store import Incoming
from .handoff import handed_back
from .workspace import Workspace


class NothingFound(ConvError):
    """Files of the tool's that hold no conversation (yet: a capture reads one before the tool wrote to it)."""


@dataclass
class Imported:
    source: str
    conversations: int  # in the source
    added: int  # new in the store
    turns: int  # turns added
    commit: str | None
    path: str = ""  # where they were read
    skipped: list = field(default_factory=list)  # what could not be read, one line each
    unchanged: int = 0  # session files passed over: as they were when last imported
    updated: int = 0  # turns the tool completed since the last import
    forks: list = field(default_factory=list)  # conversations the session went on in, apart from the user's line
    in_trash: list = field(default_factory=list)  # deleted conversations that got turns, in the trash

    def to_dict(self) -> dict:
        return {"source": self.source, "found": self.conversations, "added": self.added,
                "turns_added": self.turns, "turns_updated": self.updated, "forks": self.forks,
                "in_trash": self.in_trash, "commit": self.commit, "skipped": self.skipped,
                "unchanged_files": self.unchanged}


def import_from(ws: Workspace, source: str, path: str | None, scan: bool = False, keep=None) -> Imported:
    """Bring another tool's conversations in, in one commit. Ids and turn names
    are derived from the source's own ids, so importing again adds only what
    is new (nothing, if nothing changed; a session that grew, its new turns).
    Without a path, the source's own place (for the sources that have one).
    ``scan``: keys kept out even without the store's secret scan (a capture:
    what no person looked at before it went in). ``keep(conversation)``: which
    of the conversations read to take (a capture's: none from a folder kept out)."""
    reader = _reader(source)
    where = _place(reader, source, path)
    if path is None or scan:  # a capture, or a tool's own place: never what capture.never keeps out
        keep = _outside_never(ws, keep)
    taking = Taking(ws, reader, keep, scan or ws.store.hooks.scanning())
    read = importers.read(reader, where, lambda files: imports.changed(source, files, ws.store.has, reader.version),
                          progress.steps, taking.take)
    _found_any(read, source, where, reader.hint)
    read.said += taking.said
    if reader.keeps_no_ids:  # the turns matched by text are the stored ones: the session is those, then these
        for item in taking.incoming:
            trashed = ws.in_trash(item.conv_id)
            item.files = {**(ws.store.files(item.conv_id, trashed=trashed) if trashed is not None else {}),
                          **item.files}
    done = _written(ws, source, len(read.conversations), taking)
    imports.remember(source, {os.fspath(file): [*read.stamps[file], [taking.ids[c.source_id] for c in found],
                                                reader.version]
                              for file, found in read.whole.items() if file in read.stamps
                              and not any(c.source_id in taking.left_out for c in found)})
    return Imported(source, len(read.conversations), len(done.added), done.turns, done.new, str(where), read.said,
                    read.unchanged, done.updated, done.forks, done.in_trash)


class Taking:
    """A file's conversations made the store's, as they are read (while the
    workers read the next files): the conversations and turns made
    (``made``), their files for the store (``incoming``), the source ids
    passed over (``left_out``: by ``keep``, or for a key; their files are
    read again next time), the conv id of every source id (``ids``), and what
    is to be said."""

    def __init__(self, ws: Workspace, reader, keep, scanning: bool):
        self.ws, self.reader, self.keep, self.scanning = ws, reader, keep, scanning
        self.made, self.incoming, self.said = [], [], []
        self.left_out: set = set()
        self.ids: dict = {}
        self.projects: dict = {}  # a folder worked in -> its project

    def take(self, conversations: list, file) -> None:
        conversations = self._kept(conversations)
        if self.reader.keeps_no_ids:
            for imported in conversations:
                continue_stored(imported, lambda conv_id: _stored_turns(self.ws, conv_id))
        handed = {id(c): back for c in conversations if (back := handed_back(self.ws, self.reader.source, c))}
        self.ids.update({c.source_id: importers.conversation_id(c) for c in conversations})
        for imported in conversations:
            if imported.undated and not self.reader.keeps_no_ids:  # (those are matched by their text)
                _as_first_dated(self.ws, imported, self.ids[imported.source_id])
        for imported in conversations:
            if not imported.turns:
                continue
            conv, turns = made(imported, self.ids, self.reader.source, self.said, self._project(imported))
            if self.scanning:
                turns = _key_free(turns, self.reader.source, file, self.said)
                if len(turns) < len(imported.turns):
                    self.left_out.add(imported.source_id)
                if not turns:
                    continue
            back = handed.get(id(imported))
            if back:  # conv handoff's session going on: after the turns it was handed, in their conversation
                turns[0].parent = back["last"]
            item = Incoming.of(conv, turns)
            if back:
                item.files = {**back["files"], **{n: d for n, d in item.files.items() if n != META_FILE}}
            self.made.append((conv, turns))
            self.incoming.append(item)

    def _project(self, imported) -> dict | None:
        """The project of the folder a session was worked in, read once a folder for this import's sessions."""
        cwd = imported.origin.get("cwd")
        if cwd not in self.projects:
            self.projects[cwd] = _project(cwd)
        return self.projects[cwd]

    def _kept(self, conversations: list) -> list:
        if self.keep is None:
            return conversations
        self.left_out.update(c.source_id for c in conversations if not self.keep(c))
        return [c for c in conversations if c.source_id not in self.left_out]


def _written(ws: Workspace, source: str, found: int, taking: Taking):
    """Everything taken, in one commit; the index follows it."""
    ws.index.refresh()  # at the commit the import starts from: it then follows the import without reading it back
    done = ws.store.ingest(taking.incoming,
                           lambda done: f"import: {plural(found, 'conversation')} from {source}"
                           + (f", {plural(len(done.forks), 'line')} apart in forks" if done.forks else ""),
                           trusted=True)
    if done.new is not None:
        by_id = {conv.id: (conv, turns) for conv, turns in taking.made}
        ws.index.record_written({conv_id: by_id[conv_id] for conv_id in done.added}, done.old, done.new)
    ws.index.refresh()
    return done


def _outside_never(ws: Workspace, keep):
    """``keep``, and none worked on in a folder of ``capture.never``."""
    from ..home.connected import kept_out

    try:
        never = ws.config.get("capture.never")
    except ConvError:
        never = None
    if not never:
        return keep
    return lambda c: not kept_out(c.origin.get("cwd"), never) and (keep is None or keep(c))


def _reader(source: str):
    return sources.named(source, "reader", "unknown import source {name!r}", more=(importers.PROJECT,)).reader()


def _place(reader, source: str, path: str | None):
    """``path``, or where ``source`` keeps its conversations when none is given."""
    if path is not None:
        return Path(path).expanduser()
    default = reader.default_path()
    if default is None:
        raise UsageError(f"conv import --from {source} needs a path", "Give the file or folder to import")
    return default


def _as_first_dated(ws: Workspace, imported, conv_id: str) -> None:
    """A conversation with no time of its own (dated by its file's last change) dated as when it came in first,
    if it did: its turns keep their names (a file touched or grown is no new conversation)."""
    trashed = ws.in_trash(conv_id)
    if trashed is not None:
        dated_from(imported, ws.store.read(conv_id, trashed=trashed).created)


def _stored_turns(ws: Workspace, conv_id: str) -> list | None:
    """The turns of a conversation the store holds, live or in the trash; None when it holds none."""
    trashed = ws.in_trash(conv_id)
    return ws.store.read(conv_id, trashed=trashed).turns if trashed is not None else None


def _found_any(read, source: str, where, hint: str) -> None:
    """Refuse an import that found nothing of ``source``'s at all: no file of
    its kind, none readable, or files of another tool (not "0 new")."""
    if not read.files:
        raise ConvError(f"no {source} files in {where}", hint)
    if read.conversations or read.unchanged:
        return
    if read.said:
        more = f" (and {len(read.said) - 1} more)" if len(read.said) > 1 else ""
        raise ConvError(f"nothing in {where} could be read as {source}'s: {read.said[0]}{more}", hint)
    raise NothingFound(f"no {source} conversation in {where} ({plural(read.files, 'file')} read): are they "
                       f"{source}'s?", hint)


def made(imported, ids: dict, source: str, said: list[str], project: dict | None) -> tuple[Conversation, list[Turn]]:
    """An imported conversation as conv's conversation and turns: tied to the
    ``project`` its folder is in (as ``conv ask`` ties its own), each edit's
    file named from that project's root; a file sent with a turn that is
    neither text nor an image left out, said."""
    conv_id = ids[imported.source_id]
    names = [importers.turn_name(src, index) for index, src in enumerate(imported.turns)]
    renamed = {src.source_id: name for src, name in zip(imported.turns, names)}  # conv's export: its names, or new
    turns, parent = [], None
    for src, name in zip(imported.turns, names):
        turn = Turn(name, src.role, src.content, src.created, parent, model=src.model,
                    provider=source if src.role == "assistant" else None, usage=src.usage,
                    finish="stop" if src.role == "assistant" else None, thinking=src.thinking,
                    injected=src.injected or None,
                    edits=[_placed(e, imported.origin.get("cwd"), project) for e in src.edits] or None,
                    commands=src.commands or None)
        for key, value in src.extra.items():  # conv's own export: every field as it was, a turn it names renamed
            setattr(turn, key, renamed.get(value) if key in ("parent", "replaces") else value)
        files = [(file, data, True) for file, data in src.files] + [(file, data, False) for file, data in src.kept]
        turns.append(attach(turn, [a for file, data, sent in files if (a := _file(file, data, sent, said))]))
        parent = name
    forked_from = None
    if imported.fork_of in ids and imported.fork_at:
        forked_from = {"conversation": ids[imported.fork_of], "turn": turns[imported.fork_at - 1].name}
    conv = Conversation(id=conv_id, created=imported.created, title=imported.title, model=imported.model,
                        provider=source, forked_from=forked_from, project=project,
                        imported_from={"source": source, "id": imported.source_id, **imported.origin})
    for key, value in imported.meta.items():  # conv's own export: every field as it was
        setattr(conv, key, value)
    return conv, turns


def _project(cwd) -> dict | None:
    """The git work tree a session was worked in, when that folder is on this machine (home/project.py)."""
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        return None
    try:
        return here(cwd) if os.path.isdir(cwd) else None
    except (OSError, ValueError):
        return None


def _placed(edit: dict, cwd, project: dict | None) -> dict:
    """An edit with its ``file``: its path relative to the project's root (else to the folder worked in), when
    it is under it; the path as the tool named it stays in ``path``."""
    base = (project or {}).get("root") or (cwd if isinstance(cwd, str) and os.path.isabs(cwd) else None)
    if base is None:
        return edit
    full = os.path.normpath(os.path.join(cwd, edit["path"]) if isinstance(cwd, str) else edit["path"])
    inside = os.path.relpath(full, base) if os.path.isabs(full) else None
    return {**edit, "file": inside} if inside and not inside.startswith("..") else edit


def _key_free(turns: list, source: str, file, said: list[str]) -> list:
    """The turns before the first one that holds what looks like a key (the
    store's scan would refuse it: a capture's are always looked at, as nobody
    read them before), that one and those after it held out and said, with
    the command that takes them in all the same."""
    for n, turn in enumerate(turns):
        leak = next((what for data in (turn.to_text().encode(), *turn.attached.values())
                     if (what := key_shaped(data.decode("utf-8", "replace")))), None)
        if leak is not None:
            import shlex

            after = f" and the {plural(len(turns) - n - 1, 'turn')} after it stay" if n + 1 < len(turns) else " stays"
            said.append(f"{source} session {file}: turn {n + 1} holds what looks like {leak}, so it{after} "
                        "out of the store (conv keeps keys out of it); "
                        f"CONV_ALLOW_SECRETS=1 conv import --from {source} {shlex.quote(str(file))} takes them in")
            return turns[:n]
    return turns


def _file(name: str, data: bytes, sent: bool, said: list[str]):
    try:
        return replace(classified(name, data), sent=sent)
    except ConvError as exc:
        said.append(f"a file of an imported turn left out: {exc.message}")
        return None
