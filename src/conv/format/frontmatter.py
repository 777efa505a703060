"""Markdown files with YAML frontmatter: ``---\\n`` + mapping + ``---\\n`` + body + ``\\n``.

The body is kept exactly (lines of ``---``, text that looks like
frontmatter, trailing newlines or none); the one newline added at the end
makes every file a proper text file and is the one taken off on reading.

Two YAML paths, one format. What conv writes itself is a canonical subset,
written and read without ruamel.yaml (canonical.py). Anything else, such as
a file a person edited, with comments or other styles, is read with
ruamel's round-trip loader, and written back with it so comments and keys
added by hand survive.
"""

from __future__ import annotations

import re
from functools import cache
from io import StringIO

from ..errors import StoreError
from ..records import dataclass
from .canonical import emit_canonical, parse_canonical

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of every follow-up): PEP 781's idiom
if TYPE_CHECKING:
    from typing import Any

FENCE = "---\n"


@dataclass
class Document:
    """One file: its frontmatter mapping and its body. ``meta`` is a plain dict
    for canonical frontmatter, a ruamel CommentedMap for anything else."""

    meta: Any
    body: str


def parse_document(text: str, where: str = "file") -> Document:
    head, body = _split(text, where)
    meta = parse_canonical(head)
    if meta is None:
        meta = _parse_yaml(head, where)
    return Document(meta, body)


def body_of(text: str, where: str = "file") -> str:
    """The body alone, as parse_document reads it, without reading the frontmatter."""
    return _split(text, where)[1]


def _split(text: str, where: str) -> tuple[str, str]:
    """(frontmatter, body) of a file."""
    if not text.startswith(FENCE):
        raise StoreError(f"{where}: no frontmatter (the file must start with a '---' line)")
    end = text.find("\n---\n", len(FENCE) - 1)
    if end < 0 and text.endswith("\n---"):
        text += "\n"  # closing fence at the very end, its newline trimmed by an editor
        end = len(text) - len("\n---\n")
    if end < 0:
        raise StoreError(f"{where}: frontmatter is not closed by a '---' line")
    body = text[end + len("\n---\n") :]
    return text[len(FENCE) : end + 1], body[:-1] if body.endswith("\n") else body


def dump_document(doc: Document) -> str:
    head = emit_canonical(doc.meta) if not _is_commented(doc.meta) else None
    if head is None:
        out = StringIO()
        if doc.meta:
            _yaml().dump(doc.meta, out)
        head = out.getvalue()
    return FENCE + head + FENCE + doc.body + "\n"


def new_mapping(commented: bool = False) -> Any:
    """An empty mapping for a new file (plain: written canonically)."""
    if commented:
        from ruamel.yaml.comments import CommentedMap

        return CommentedMap()
    return {}


# -- everything else: ruamel.yaml ----------------------------------------------
@cache
def _yaml():
    from ruamel.yaml import YAML

    yaml = YAML()  # round-trip: keeps comments, key order and quoting
    yaml.width = 1 << 16  # never fold long values onto new lines
    yaml.allow_unicode = True
    yaml.preserve_quotes = True
    return yaml


def _parse_yaml(head: str, where: str) -> Any:
    try:
        meta = _yaml().load(head) if head.strip() else None
    except Exception as exc:  # ruamel raises many types; all mean "not YAML"
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        at = f" (line {line + 2})" if line is not None else ""
        raise StoreError(f"{where}: frontmatter is not valid YAML{at}") from None
    if meta is None:
        return new_mapping(commented=True)
    if not isinstance(meta, dict):
        raise StoreError(f"{where}: frontmatter must be a YAML mapping")
    if aliased(meta):
        raise StoreError(f"{where}: frontmatter uses YAML aliases (*name), which conv never writes: not read",
                         "Write the values out, with conv git")
    return meta


def aliased(value) -> bool:
    """Whether a list or mapping appears twice in ``value`` as YAML loaded it
    (an alias): a billion-laughs file is a few lines that, walked or written
    out, expand to gigabytes. The walk visits each one once, so it costs what
    the file's size costs."""
    seen, stack = set(), [value]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            return True
        seen.add(id(item))
        if isinstance(item, dict):
            stack.extend(v for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, (dict, list)))
    return False


def _is_commented(meta: Any) -> bool:
    return type(meta) is not dict


_NEEDS_ESCAPES = re.compile("[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f\\u2028\\u2029\\ufeff]")


def emittable(value: Any) -> Any:
    """A value ready for ruamel: strings holding control characters or Unicode
    line breaks go out double-quoted with escapes (ruamel writes U+0085 raw in
    single quotes, where reading it back folds it into a space)."""
    if isinstance(value, str) and _NEEDS_ESCAPES.search(value):
        from ruamel.yaml.scalarstring import DoubleQuotedScalarString

        return DoubleQuotedScalarString(value)
    if isinstance(value, list):
        return [emittable(v) for v in value]
    if isinstance(value, dict):
        return {k: emittable(v) for k, v in value.items()}
    return value
