"""Conversations out of conv: ``conv export`` (Markdown, JSON, OpenAI messages, ShareGPT)."""


import os
from pathlib import Path

from ..errors import ConvError, UsageError
from ..format.model import Conversation, Turn
from ..home import progress
from ..home.files import output_file, write_out
from ..records import dataclass
from .ask.attachments import Speaker
from .ask.context import transcript_messages
from .workspace import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .redacting import Redacting

FORMATS = ("md", "json", "openai", "sharegpt")
SHAREGPT_ROLES = {"system": "system", "user": "human", "assistant": "gpt"}


def export(ws: Workspace, ref: str | None, fmt: str, redacting: "Redacting | None" = None):
    """The conversation as Markdown text, a JSON-ready dict, the messages list
    a chat-completions API takes, or ShareGPT's record; what would give the user
    away masked by ``redacting`` (None: as stored)."""
    _check(fmt)
    return rendered(ws, ws.conversation(ws.resolve(ref)), fmt, redacting)


def _check(fmt: str) -> None:
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}", "Use one of: " + ", ".join(FORMATS))


def rendered(ws: Workspace, conv: Conversation, fmt: str, redacting: "Redacting | None" = None):
    mask = _masker(redacting.of(conv)) if redacting else (lambda data: data)
    if fmt == "json":  # the files' bytes are data: added once the rest is masked
        return _with_file_data(mask(conv.to_dict()), Speaker(ws.store, conv.id, True), conv.turns)
    if fmt == "md":
        return mask(markdown(conv, Speaker(ws.store, conv.id, False, unsent="")))
    system, messages = transcript_messages(conv.turns, Speaker(ws.store, conv.id, fmt == "openai", unsent=""))
    if fmt == "sharegpt":
        said = ([("system", system)] if system else []) + [(m.role, m.content) for m in messages]
        return mask({"id": conv.id,
                     "conversations": [{"from": SHAREGPT_ROLES[role], "value": text} for role, text in said]})
    from ..providers.openai import wire_message

    return mask(([{"role": "system", "content": system}] if system else []) + [wire_message(m) for m in messages])


def _masker(redactor):
    from ..home.secrets import redacted

    return lambda data: redacted(data, rule=redactor)


@dataclass
class ExportedAll:
    count: int
    output: str | None  # where they were written; None: ``text`` is for stdout
    text: str | None = None


def export_all(ws: Workspace, filters, fmt: str, output: str | None, redacting: "Redacting | None" = None,
               write: bool = True) -> ExportedAll:
    """Every conversation ``filters`` keep, newest first: Markdown, one file each
    in the folder ``output``; json, one list (what conv import --from conv
    reads); openai and sharegpt, one conversation a line (JSONL, as fine-tuning
    tools read them): into the file ``output`` (a folder: a file in it), or as
    text for stdout; masked by ``redacting``; nothing written unless ``write``."""
    import json

    _check(fmt)
    if fmt == "md" and not output and write:
        raise UsageError("--all --format md writes one file a conversation", "Name their folder: -o DIR")
    folder = Path(output) if fmt == "md" and output else None
    if folder is not None and os.path.exists(folder) and not os.path.isdir(folder):
        raise ConvError(f"{output} is a file, and --all --format md writes one file a conversation into a folder",
                        "Give -o a folder (it is made if it is not there)")
    target = output_file(output, f"conversations.{'json' if fmt == 'json' else 'jsonl'}") if output else None
    rows = ws.index.refresh().recent(None, filters)
    out: list[str] = []
    with progress.steps("exporting conversations", len(rows)) as advance:
        for row in rows:
            item = rendered(ws, ws.conversation(row.id), fmt, redacting)
            item = {"messages": item} if fmt == "openai" else item  # a line of a fine-tuning file
            if fmt == "md" and write:
                write_out(folder / f"{row.id}.md", item)
            else:
                out.append(json.dumps(item, ensure_ascii=False))
            advance()
    if fmt == "md":
        return ExportedAll(len(rows), str(folder))
    text = "[" + ",\n".join(out) + "]\n" if fmt == "json" else "".join(f"{line}\n" for line in out)
    if target is not None and write:
        write_out(target, text)
    return ExportedAll(len(rows), str(target) if target else None, None if target else text)


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
