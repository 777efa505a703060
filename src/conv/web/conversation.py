"""One conversation: its turns as Markdown, code highlighted, tool calls
and their output folded, the thinking and what a tool injected kept apart
(shown on demand), the files sent with a turn, each answer's usage, what an
agent's answer changed and ran; and the commands to go on with it (``conv
ask -c``, ``conv handoff``, the source tool's own resume)."""

import shlex
from html import escape

from ..services.handoff import resumed_by
from .layout import command, dollars, page, tokens, when
from .markup import markdown, text


def conversation(ws, conv_id: str) -> str:
    conv = ws.conversation(conv_id)
    row = ws.index.queries.get(conv_id)
    short = ws.index.queries.short_id(conv_id)
    imported = conv.imported_from or {}
    facts = [text(short), text(imported.get("source") or "conv"), text(conv.going_on_with or conv.model or ""),
             f"{len(conv.turns)} turns", when(conv.created),
             text((conv.project or {}).get("root") or imported.get("cwd") or "")]
    head = (f'<h1>{text(conv.title or "(untitled)")}</h1><p class=facts>' + " · ".join(f for f in facts if f) + "</p>"
            + "".join(f"<span class=tag>{text(tag)}</span> " for tag in conv.tags or ())
            + f'<p class=facts>{text(conv.status or "active")}'
            + (f' · {tokens(row.tokens)} tokens · {dollars(row.cost)}' if row else "")
            + f' · <a href="c/{escape(conv_id)}/versions">versions and forks</a></p>'
            + _go_on(short, imported) + (f"<section class=summary><h2>Summary</h2>{markdown(conv.summary)}</section>"
                                          if conv.summary else ""))
    turns = "".join(_turn(n, turn) for n, turn in enumerate(conv.turns, 1))
    return page(conv.title or conv_id, head + f'<div class=turns id=turns data-live>{turns}</div>')


def _go_on(short: str, imported: dict) -> str:
    lines = [f"conv ask -c {short} \"…\"", f"conv handoff {short} --to claude-code"]
    resume = resumed_by(imported)
    if resume:
        lines.append(shlex.join(resume))
    return "<p class=go-on>Go on: " + " ".join(command(line) for line in lines) + "</p>"


def _turn(n: int, turn) -> str:
    parts = [f'<div class=turn-head><a href="#turn-{n}">#{n}</a> <strong>{text(turn.role)}</strong> '
             f'{when(turn.created)} {text(turn.model or "")}{_usage(turn.usage)}'
             + (f' · retry of {text(turn.replaces)}' if turn.replaces else "")
             + (f' · <span class=error>{text(turn.finish)}</span>' if turn.finish in ("error", "interrupted") else "")
             + "</div>"]
    if turn.thinking:
        parts.append(f"<details class=thinking><summary>thinking</summary>{markdown(turn.thinking)}</details>")
    for note in turn.injected or ():
        parts.append(f'<details class=injected><summary>{text(note.get("kind") or "injected")}</summary>'
                     f'<pre>{text(note.get("text") or "")}</pre></details>')
    parts.append(f"<div class=content>{markdown(turn.content)}</div>")
    if turn.files:
        parts.append("<p class=files>files sent: " + ", ".join(text(f.get("name") or f.get("file") or "")
                                                                  for f in turn.files) + "</p>")
    if turn.edits:
        parts.append("<details class=edits><summary>" + f"{len(turn.edits)} edits</summary><ul>" + "".join(
            f'<li>{text(e.get("kind"))} <code>{text(e.get("file") or e.get("path"))}</code>'
            f'{" (failed)" if e.get("failed") else ""}</li>' for e in turn.edits) + "</ul></details>")
    if turn.commands:
        parts.append("<details class=commands><summary>" + f"{len(turn.commands)} commands</summary><ul>" + "".join(
            f'<li><code>{text(c.get("command"))}</code>{" (failed)" if c.get("failed") else ""}</li>'
            for c in turn.commands) + "</ul></details>")
    return f'<article class="turn {escape(turn.role)}" id="turn-{n}">' + "".join(parts) + "</article>"


def _usage(usage: dict | None) -> str:
    if not usage:
        return ""
    classes = [("in", "prompt_tokens"), ("cache w", "cache_write_tokens"), ("cache r", "cache_read_tokens"),
               ("out", "completion_tokens")]
    said = " ".join(f"{label} {tokens(usage.get(key))}" for label, key in classes if usage.get(key))
    cost = f" {dollars(usage['cost'])}" if isinstance(usage.get("cost"), (int, float)) else ""
    return f" · <span class=usage>{said}{cost}</span>"
