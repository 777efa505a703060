"""Conversations out of conv (export) and into it (import from llm, ChatGPT, Claude Code and conv itself)."""


import os
from pathlib import Path

from ..errors import UsageError
from ..format.model import Conversation, Turn
from ..format.words import plural
from ..home import imports, progress
from ..home.files import write_atomic
from ..records import dataclass, field, replace
from .ask.attachments import Speaker, attach, classified
from .ask.context import transcript_messages
from .workspace import Workspace

FORMATS = ("md", "json", "openai", "sharegpt")
SHAREGPT_ROLES = {"system": "system", "user": "human", "assistant": "gpt"}


def export(ws: Workspace, ref: str | None, fmt: str):
    """The conversation as Markdown text, a JSON-ready dict, the messages list
    a chat-completions API takes, or ShareGPT's record."""
    _check(fmt)
    return rendered(ws, ws.conversation(ws.resolve(ref)), fmt)


def _check(fmt: str) -> None:
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}", "Use one of: " + ", ".join(FORMATS))


def rendered(ws: Workspace, conv: Conversation, fmt: str):
    if fmt == "json":
        return _with_file_data(conv.to_dict(), Speaker(ws.store, conv.id, True), conv.turns)
    if fmt == "md":
        return markdown(conv, Speaker(ws.store, conv.id, False, unsent=""))
    system, messages = transcript_messages(conv.turns, Speaker(ws.store, conv.id, fmt == "openai", unsent=""))
    if fmt == "sharegpt":
        said = ([("system", system)] if system else []) + [(m.role, m.content) for m in messages]
        return {"id": conv.id, "conversations": [{"from": SHAREGPT_ROLES[role], "value": text} for role, text in said]}
    from ..providers.openai import wire_message

    return ([{"role": "system", "content": system}] if system else []) + [wire_message(m) for m in messages]


@dataclass
class ExportedAll:
    count: int
    output: str | None  # where they were written; None: ``text`` is for stdout
    text: str | None = None


def export_all(ws: Workspace, filters, fmt: str, output: str | None) -> ExportedAll:
    """Every conversation ``filters`` keep, newest first: Markdown, one file each
    in the folder ``output``; json, one list (what conv import --from conv
    reads); openai and sharegpt, one conversation a line (JSONL, as fine-tuning
    tools read them): into the file ``output``, or as text for stdout."""
    import json

    _check(fmt)
    if fmt == "md" and not output:
        raise UsageError("--all --format md writes one file a conversation", "Name their folder: -o DIR")
    rows = ws.index.refresh().recent(None, filters)
    out: list[str] = []
    folder = Path(output) if output else None
    if fmt == "md":
        folder.mkdir(parents=True, exist_ok=True)
    with progress.steps("exporting conversations", len(rows)) as advance:
        for row in rows:
            item = rendered(ws, ws.conversation(row.id), fmt)
            item = {"messages": item} if fmt == "openai" else item  # a line of a fine-tuning file
            if fmt == "md":
                write_atomic(folder / f"{row.id}.md", item)
            else:
                out.append(json.dumps(item, ensure_ascii=False))
            advance()
    if fmt == "md":
        return ExportedAll(len(rows), str(folder))
    text = "[" + ",\n".join(out) + "]\n" if fmt == "json" else "".join(f"{line}\n" for line in out)
    if output:
        write_atomic(Path(output), text)
    return ExportedAll(len(rows), output, None if output else text)


def _with_file_data(exported: dict, speaker: Speaker, turns: list[Turn]) -> dict:
    """The files sent with the turns, their bytes too (base64), so the export holds everything."""
    from base64 import b64encode

    for out, turn in zip(exported["turns"], turns):
        for f in out.get("files") or ():
            f["data_base64"] = b64encode(speaker.data(turn, f["file"])).decode()
    return exported


def markdown(conv: Conversation, speaker: Speaker) -> str:
    head = (f"# {conv.title or conv.id}\n\n`{conv.id}` · created {conv.created}"
            + (f" · {conv.model}" if conv.model else ""))
    parts = [head + "\n"] + ([f"> {conv.summary}\n"] if conv.summary else [])
    for n, turn in enumerate(conv.turns, 1):
        facts = " · ".join(x for x in (turn.created, turn.model,
                                       turn.finish if turn.finish not in (None, "stop") else None) if x)
        text = speaker(turn).content
        parts.append(f"## {n}. {turn.role}" + (f" · {facts}" if facts else "") + f"\n\n{text.rstrip()}\n")
    return "\n".join(parts)


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

    def to_dict(self) -> dict:
        return {"source": self.source, "found": self.conversations, "added": self.added,
                "turns_added": self.turns, "commit": self.commit, "skipped": self.skipped,
                "unchanged_files": self.unchanged}


def import_from(ws: Workspace, source: str, path: str | None) -> Imported:
    """Bring another tool's conversations in, in one commit. Ids and turn names
    are derived from the source's own ids, so importing again adds only what
    is new (nothing, if nothing changed; a session that grew, its new turns).
    Without a path, the source's own place (for the sources that have one)."""
    from .. import importers

    where = importers.place(source, path)
    if importers.by_session(source):
        found, whole, unchanged = importers.read_changed(source, where,
                                                         lambda files: imports.changed(source, files, ws.store.has),
                                                         progress.steps)
    else:
        found, whole, unchanged = importers.read(source, where), {}, 0
    if importers.keeps_no_ids(source):
        for imported in found:
            importers.continue_stored(imported, lambda conv_id: ws.store.read(conv_id).turns
                                      if ws.store.has(conv_id) else None)
    ids_by_source = {c.source_id: importers.conversation_id(c) for c in found}
    items = []
    for imported in (c for c in found if c.turns):
        conv_id = ids_by_source[imported.source_id]
        turns, parent = [], None
        for index, src in enumerate(imported.turns):
            name = importers.turn_name(src, index)
            turn = Turn(name, src.role, src.content, src.created, parent, model=src.model,
                        provider=source if src.role == "assistant" else None, usage=src.usage,
                        finish="stop" if src.role == "assistant" else None, thinking=src.thinking)
            turns.append(attach(turn, [classified(file, data) for file, data in src.files]
                                + [replace(classified(file, data), sent=False) for file, data in src.kept]))
            parent = name
        forked_from = None
        if imported.fork_of in ids_by_source and imported.fork_at:
            forked_from = {"conversation": ids_by_source[imported.fork_of], "turn": turns[imported.fork_at - 1].name}
        conv = Conversation(id=conv_id, created=imported.created, title=imported.title,
                            model=imported.model, provider=source, forked_from=forked_from,
                            imported_from={"source": source, "id": imported.source_id, **imported.origin})
        items.append((conv, turns))
    ws.index.refresh()  # at the commit the import starts from: it then follows the import without reading it back
    written, added, turn_count = ws.store.add_many(items, f"import: {plural(len(found), 'conversation')} from {source}")
    if written is not None:
        by_id = {conv.id: (conv, turns) for conv, turns in items}
        ws.index.record_written({conv_id: by_id[conv_id] for conv_id in added}, written.old, written.new)
    ws.index.refresh()
    imports.remember(source, {os.fspath(file): [*imports.fingerprint(file), [ids_by_source[c.source_id] for c in read]]
                              for file, read in whole.items()})
    return Imported(source, len(found), len(added), turn_count, written.new if written else None, str(where),
                    [line for imported in found for line in imported.skipped], unchanged)
