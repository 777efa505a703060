"""Conversations out of conv (export) and into it (import from llm, ChatGPT, Claude Code and conv itself)."""


import os

from ..errors import UsageError
from ..format.model import Conversation, Turn
from ..format.words import plural
from ..home import imports
from ..records import dataclass, field, replace
from .ask.attachments import Speaker, attach, classified
from .ask.context import transcript_messages
from .workspace import Workspace

FORMATS = ("md", "json", "openai")


def export(ws: Workspace, ref: str | None, fmt: str):
    """The conversation as Markdown text, a JSON-ready dict, or the messages
    list a chat-completions API takes."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}", "Use one of: " + ", ".join(FORMATS))
    conv = ws.conversation(ws.resolve(ref))
    if fmt == "json":
        return _with_file_data(conv.to_dict(), Speaker(ws.store, conv.id, None, True), conv.turns)
    if fmt == "openai":
        from ..providers.openai import wire_message

        system, messages = transcript_messages(conv.turns, Speaker(ws.store, conv.id, None, True))
        return ([{"role": "system", "content": system}] if system else []) + [wire_message(m) for m in messages]
    return markdown(conv, Speaker(ws.store, conv.id, None, False, unsent=""))


def _with_file_data(exported: dict, speaker: Speaker, turns: list[Turn]) -> dict:
    """The files sent with the turns, their bytes too (base64), so the export holds everything."""
    from base64 import b64encode

    for out, turn in zip(exported["turns"], turns):
        for f in out.get("files") or ():
            f["data_base64"] = b64encode(speaker.data(turn, f["file"])).decode()
    return exported


def markdown(conv: Conversation, speaker: Speaker) -> str:
    head = f"# {conv.title or conv.id}\n\n`{conv.id}` · created {conv.created}" + (f" · {conv.model}" if conv.model else "")
    parts = [head + "\n"] + ([f"> {conv.summary}\n"] if conv.summary else [])
    for n, turn in enumerate(conv.turns, 1):
        facts = " · ".join(x for x in (turn.created, turn.model, turn.finish if turn.finish not in (None, "stop") else None) if x)
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
                                                         lambda files: imports.changed(source, files, ws.store.has))
    else:
        found, whole, unchanged = importers.read(source, where), {}, 0
    ids_by_source = {c.source_id: importers.conversation_id(c) for c in found}
    items = []
    for imported in found:
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
    written, added, turn_count = ws.store.add_many(items, f"import: {plural(len(found), 'conversation')} from {source}")
    ws.index.refresh()
    imports.remember(source, {os.fspath(file): [*imports.fingerprint(file), [ids_by_source[s] for s in sources]]
                              for file, sources in whole.items()})
    return Imported(source, len(found), added, turn_count, written.new if written else None, str(where),
                    [line for imported in found for line in imported.skipped], unchanged)
