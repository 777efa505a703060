"""Markdown as conv shows it (conv show on a terminal, conv share's page):
rich's Markdown, with what it will show masked once it is parsed, and a
fenced block's label shown.

Masking the text before parsing misses what only the parser puts together:
a key written with character references (``sk&#45;proj-…``), split by
emphasis (``sk-proj-ab*cd*ef``) or by backslash escapes reads whole on the
screen. So the text is parsed first, and the pieces it will show (the text
of each paragraph, joined across emphasis; code; link targets) are searched
and masked there. A fence whose info is more than a language name (an
imported agent's ``tool call: Bash``) shows that label above the block, as
it shows when piped."""

from collections.abc import Callable
from functools import cache

from ..home.secrets import masked, shown

Spans = Callable[[str], list]  # text -> [(start, end, ...)] of what to mask (home/secrets.spans, a redactor's)
_SHOWN = ("text", "code_inline")  # inline pieces whose text is shown as it is
_BREAKS = ("softbreak", "hardbreak")  # between two lines of a paragraph: read as a line's end


def document(text: str, find: Spans):
    """rich's Markdown of ``text`` (no hyperlinks), every piece it shows masked where ``find`` says."""
    markdown = _kind()(text, hyperlinks=False)
    for token in markdown.parsed:
        if token.children:
            _mask_inline(token.children, find)
        if token.type in ("fence", "code_block", "html_block"):
            token.content = _masked(token.content, find)
        if token.info:
            token.info = _masked(token.info, find)
    return markdown


def _masked(text: str, find: Spans) -> str:
    return masked(text, find(text)) if text else text


def _mask_inline(children: list, find: Spans) -> None:
    """Mask what the pieces of one paragraph show together (a key split by
    emphasis is one key), an image's alt text among them."""
    for child in children:
        for name, value in list((child.attrs or {}).items()):
            if isinstance(value, str):
                child.attrs[name] = _masked(value, find)
        if child.content and child.type not in _SHOWN:
            child.content = _masked(child.content, find)
    pieces = [c for c in _flat(children) if c.type in _SHOWN or c.type in _BREAKS]
    joined = "".join("\n" if c.type in _BREAKS else c.content for c in pieces)  # a line's end ends a word
    found = find(joined) if joined else []
    if not found:
        return
    at = 0
    for piece in pieces:
        if piece.type in _BREAKS:
            at += 1
            continue
        start, end = at, at + len(piece.content)
        at = end
        out, kept = [], start
        for span in found:
            a, b = span[:2]
            if b <= start or a >= end:
                continue
            out.append(piece.content[kept - start:max(a, start) - start])
            if a >= start:
                out.append(shown(span))  # the span begins in this piece: its mask goes here, its rest goes
            kept = min(b, end)
        out.append(piece.content[kept - start:])
        piece.content = "".join(out)


def _flat(children: list) -> list:
    """The inline pieces in the order they show, those inside others (an image's alt text) included."""
    out = []
    for child in children:
        out.append(child)
        out += _flat(child.children or [])
    return out


@cache
def _kind():
    """rich's Markdown whose fenced blocks show a label their info gives (imported here: rich is heavy)."""
    from rich.markdown import CodeBlock, Markdown
    from rich.text import Text

    class LabelledBlock(CodeBlock):
        @classmethod
        def create(cls, markdown, token):
            block = super().create(markdown, token)
            info = (token.info or "").strip()
            block.label = info if any(c in info for c in " :") else ""
            if block.label:
                block.lexer_name = "text"
            return block

        def __rich_console__(self, console, options):
            if self.label:
                yield Text(self.label, style="bold")
            yield from super().__rich_console__(console, options)

    class Document(Markdown):
        elements = {**Markdown.elements, "fence": LabelledBlock}

    return Document
