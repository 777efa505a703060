"""``conv import``: other tools' conversations into the store. What the
tools wrote passes the ingest boundary (importers/boundary.py) and is written
by the store's one writer of what comes from outside (``Store.ingest``), so
a second import adds only what is new, a session that grew after a
follow-up asked in conv goes on in a fork, and nothing deleted or purged
comes back to life."""

import os
from pathlib import Path

from .. import importers, sources
from ..errors import ConvError, UsageError
from ..format.model import Conversation, Turn
from ..format.words import plural
from ..home import imports, progress
from ..home.key_shapes import key_shaped
from ..importers.by_text import continue_stored
from ..records import dataclass, field, replace
from ..store import Incoming
from .ask.attachments import attach, classified
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
    ids_by_source, made, incoming, said = {}, [], [], []

    left_out: set = set()  # source ids passed over (``keep``, a key held out): their files are read again next time
    scanning = scan or ws.store.hooks.scanning()

    def take(conversations: list, file) -> None:  # a file's, made conv's while the workers read the next ones
        if keep is not None:
            left_out.update(c.source_id for c in conversations if not keep(c))
            conversations = [c for c in conversations if c.source_id not in left_out]
        if reader.keeps_no_ids:
            for imported in conversations:
                continue_stored(imported, lambda conv_id: _stored_turns(ws, conv_id))
        handed = {id(c): found for c in conversations if (found := _handed_back(ws, source, c)) is not None}
        ids_by_source.update({c.source_id: importers.conversation_id(c) for c in conversations})
        for imported in conversations:
            if not imported.turns:
                continue
            conv, turns = _made(imported, ids_by_source, source, said)
            if scanning:
                turns = _key_free(turns, source, file, said)
                if len(turns) < len(imported.turns):
                    left_out.add(imported.source_id)
                if not turns:
                    continue
            back = handed.get(id(imported))  # conv handoff's session going on: after the turns it was handed
            if back:
                turns[0].parent = back["last"]
            made.append((conv, turns))
            incoming.append(Incoming.of(conv, turns))
            if back:
                incoming[-1].files = {**back["files"],
                                      **{n: d for n, d in incoming[-1].files.items() if n != "conversation.md"}}

    read = importers.read(reader, where, lambda files: imports.changed(source, files, ws.store.has), progress.steps,
                          take)
    _found_any(read, source, where, reader.hint)
    read.said += said
    found = read.conversations
    if reader.keeps_no_ids:  # the turns matched by text are the stored ones: the session is those, then these
        for item in incoming:
            trashed = _in_trash(ws, item.conv_id)
            item.files = {**(ws.store.files(item.conv_id, trashed=trashed) if trashed is not None else {}),
                          **item.files}
    ws.index.refresh()  # at the commit the import starts from: it then follows the import without reading it back
    done = ws.store.ingest(incoming,
                           lambda done: f"import: {plural(len(found), 'conversation')} from {source}"
                           + (f", {plural(len(done.forks), 'line')} apart in forks" if done.forks else ""),
                           trusted=True)
    if done.new is not None:
        by_id = {conv.id: (conv, turns) for conv, turns in made}
        ws.index.record_written({conv_id: by_id[conv_id] for conv_id in done.added}, done.old, done.new)
    ws.index.refresh()
    imports.remember(source, {os.fspath(file): [*read.stamps[file],
                                                [ids_by_source[c.source_id] for c in conversations]]
                              for file, conversations in read.whole.items() if file in read.stamps
                              and not any(c.source_id in left_out for c in conversations)})
    return Imported(source, len(found), len(done.added), done.turns, done.new, str(where), read.said, read.unchanged,
                    done.updated, done.forks, done.in_trash)


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


def _handed_back(ws: Workspace, source: str, imported) -> dict | None:
    """For a session conv handoff wrote, its conversation's files up to the
    turns it was handed, with ``imported`` made the session's new turns in
    that conversation; None for any other session (or one whose start is
    not what was handed: then it comes in as a conversation of its own)."""
    from ..home import handoffs

    handed = handoffs.find(source, imported.source_id)
    if handed is None or [t.role for t in imported.turns[:len(handed["roles"])]] != handed["roles"]:
        return None
    trashed = _in_trash(ws, handed["conv"])
    if trashed is None:
        return None
    names = [t.name for t in ws.store.read(handed["conv"], trashed=trashed).turns]
    if handed["last"] not in names:
        return None
    kept = names[:names.index(handed["last"]) + 1]
    files = {name: sha for name, sha in ws.store.files(handed["conv"], trashed=trashed).items()
             if name == "conversation.md" or any(name.startswith(turn) for turn in kept)}
    imported.conv_id, imported.turns = handed["conv"], imported.turns[len(handed["roles"]):]
    return {"last": handed["last"], "files": files}


def _stored_turns(ws: Workspace, conv_id: str) -> list | None:
    """The turns of a conversation the store holds, live or in the trash; None when it holds none."""
    trashed = _in_trash(ws, conv_id)
    return ws.store.read(conv_id, trashed=trashed).turns if trashed is not None else None


def _in_trash(ws: Workspace, conv_id: str) -> bool | None:
    """Whether the store holds the conversation in the trash (True), live (False), or not at all (None)."""
    return next((trashed for trashed in (False, True) if ws.store.has(conv_id, trashed=trashed)), None)


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


def _made(imported, ids_by_source: dict, source: str, said: list[str]) -> tuple[Conversation, list[Turn]]:
    """An imported conversation as conv's conversation and turns (a file sent
    with a turn that is neither text nor an image is left out, said)."""
    conv_id = ids_by_source[imported.source_id]
    names = [importers.turn_name(src, index) for index, src in enumerate(imported.turns)]
    renamed = {src.source_id: name for src, name in zip(imported.turns, names)}  # conv's export: its names, or new
    turns, parent = [], None
    for src, name in zip(imported.turns, names):
        turn = Turn(name, src.role, src.content, src.created, parent, model=src.model,
                    provider=source if src.role == "assistant" else None, usage=src.usage,
                    finish="stop" if src.role == "assistant" else None, thinking=src.thinking,
                    injected=src.injected or None)
        for key, value in src.extra.items():  # conv's own export: every field as it was, a turn it names renamed
            setattr(turn, key, renamed.get(value) if key in ("parent", "replaces") else value)
        files = [(file, data, True) for file, data in src.files] + [(file, data, False) for file, data in src.kept]
        turns.append(attach(turn, [a for file, data, sent in files if (a := _file(file, data, sent, said))]))
        parent = name
    forked_from = None
    if imported.fork_of in ids_by_source and imported.fork_at:
        forked_from = {"conversation": ids_by_source[imported.fork_of], "turn": turns[imported.fork_at - 1].name}
    conv = Conversation(id=conv_id, created=imported.created, title=imported.title, model=imported.model,
                        provider=source, forked_from=forked_from,
                        imported_from={"source": source, "id": imported.source_id, **imported.origin})
    for key, value in imported.meta.items():  # conv's own export: every field as it was
        setattr(conv, key, value)
    return conv, turns


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
