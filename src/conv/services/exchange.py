"""Conversations out of conv (export) and into it (import from llm and ChatGPT)."""

from ..context import transcript_messages
from ..errors import UsageError
from ..format import Conversation
from .workspace import Workspace

FORMATS = ("md", "json", "openai")


def export(ws: Workspace, ref: str | None, fmt: str):
    """The conversation as Markdown text, a JSON-ready dict, or the messages
    list a chat-completions API takes."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}", "Use one of: " + ", ".join(FORMATS))
    conv = ws.conversation(ws.resolve(ref))
    if fmt == "json":
        return conv.to_dict()
    if fmt == "openai":
        system, messages = transcript_messages(conv.turns)
        return ([{"role": "system", "content": system}] if system else []) + [
            {"role": m.role, "content": m.content} for m in messages]
    return markdown(conv)


def markdown(conv: Conversation) -> str:
    head = f"# {conv.title or conv.id}\n\n`{conv.id}` · created {conv.created}" + (f" · {conv.model}" if conv.model else "")
    parts = [head + "\n"] + ([f"> {conv.summary}\n"] if conv.summary else [])
    for n, turn in enumerate(conv.turns, 1):
        facts = " · ".join(x for x in (turn.created, turn.model, turn.finish if turn.finish not in (None, "stop") else None) if x)
        parts.append(f"## {n}. {turn.role}" + (f" · {facts}" if facts else "") + f"\n\n{turn.content.rstrip()}\n")
    return "\n".join(parts)
