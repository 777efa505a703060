"""Markdown files with YAML frontmatter: ``---\\n`` + mapping + ``---\\n`` + body + ``\\n``.

The body is kept exactly (lines of ``---``, text that looks like
frontmatter, trailing newlines or none); the one newline added at the end
makes every file a proper text file and is the one taken off on reading.

Two YAML paths, one format. What conv writes itself is a canonical subset
(``key: scalar`` lines, one level of nesting, flow lists, strings plain when
unambiguous and JSON-quoted otherwise), written and read here without
ruamel.yaml, whose import alone would cost a fifth of a follow-up's budget.
Anything else, such as a file a person edited, with comments or other
styles, is read with ruamel's round-trip loader, and written back with it so
comments and keys added by hand survive. tests/test_format.py checks that
ruamel reads the canonical subset exactly as this module does.
"""

from __future__ import annotations

import json
import re
from functools import cache
from io import StringIO

from ..errors import StoreError
from ..records import dataclass

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


# -- the canonical subset ------------------------------------------------------
_KEY = r"[A-Za-z_][A-Za-z0-9_]*"
# Plain (unquoted) strings: letters first, no YAML indicators, no trailing space.
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9 _.+/()-]*[A-Za-z0-9_.)]|[A-Za-z_]")
_WORDS = {"true", "false", "null", "yes", "no", "on", "off", "y", "n"}  # YAML 1.1/1.2 bools and null
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?(e[-+][0-9]+)?")  # as repr() writes a float
_ESCAPE_MORE = re.compile("[\\x7f-\\x9f\\u2028\\u2029\\ufeff\\ufffe\\uffff]")  # what YAML may not hold as it is
_KEY_RE = re.compile(_KEY)
_LINE = re.compile(rf"({_KEY}):(?: (.*))?")
_CHILD = re.compile(rf"  ({_KEY}): (.*)")


def _scalar_out(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if value == value and abs(value) != float("inf") else None
    if isinstance(value, str):
        if _PLAIN.fullmatch(value) and value.lower() not in _WORDS:
            return value
        quoted = json.dumps(value, ensure_ascii=False)
        return _ESCAPE_MORE.sub(lambda m: f"\\u{ord(m[0]):04x}", quoted)
    return None


def emit_canonical(meta: dict) -> str | None:
    """The mapping in the canonical subset, or None if it does not fit."""
    lines = []
    for key, value in meta.items():
        if not isinstance(key, str) or not _KEY_RE.fullmatch(key) or value is None:
            return None
        if isinstance(value, dict):
            if not value:
                return None
            lines.append(f"{key}:")
            for k, v in value.items():
                out = _scalar_out(v) if isinstance(k, str) and _KEY_RE.fullmatch(k) else None
                if out is None:
                    return None
                lines.append(f"  {k}: {out}")
        elif isinstance(value, list):
            items = [_scalar_out(v) if isinstance(v, str) else None for v in value]
            if None in items:
                return None
            lines.append(f"{key}: [{', '.join(items)}]")
        else:
            out = _scalar_out(value)
            if out is None:
                return None
            lines.append(f"{key}: {out}")
    return "".join(line + "\n" for line in lines)


def _scalar_in(text: str) -> tuple[bool, Any]:
    """(understood, value) for one canonical scalar."""
    first = text[:1]
    if first == '"':
        inner = text[1:-1]
        if text[-1:] == '"' and len(text) > 1 and '"' not in inner and "\\" not in inner and inner.isprintable():
            return True, inner  # what JSON reads it as, without a decoder (an index build reads 300,000)
        try:
            value = json.loads(text)
        except ValueError:
            return False, None
        return isinstance(value, str), value
    if first == "-" or first.isdigit():
        if _INT.fullmatch(text):
            return True, int(text)
        if _FLOAT.fullmatch(text):
            return True, float(text)
        return False, None
    if text in ("true", "false"):
        return True, text == "true"
    if _PLAIN.fullmatch(text) and text.lower() not in _WORDS:
        return True, text
    return False, None


def _list_in(text: str) -> tuple[bool, list]:
    if not (text.startswith("[") and text.endswith("]")):
        return False, []
    inner = text[1:-1]
    if not inner:
        return True, []
    items = re.findall(r'\s*("(?:[^"\\]|\\.)*"|[^,"]+?)\s*(?:,|$)', inner)
    if ", ".join(items) != inner:
        return False, []
    values = [_scalar_in(item) for item in items]
    if not all(ok and isinstance(v, str) for ok, v in values):
        return False, []
    return True, [v for _, v in values]


def parse_canonical(head: str) -> dict | None:
    """The mapping, if ``head`` is exactly what ``emit_canonical`` writes; else None."""
    out: dict = {}
    lines = head.split("\n")
    if lines[-1] != "":
        return None
    lines.pop()
    n = 0
    while n < len(lines):
        match = _LINE.fullmatch(lines[n])
        if not match or match[1] in out:
            return None
        key, text = match[1], match[2]
        n += 1
        if text is None:  # a nested mapping follows
            child: dict = {}
            while n < len(lines) and (sub := _CHILD.fullmatch(lines[n])):
                ok, value = _scalar_in(sub[2])
                if not ok or sub[1] in child:
                    return None
                child[sub[1]] = value
                n += 1
            if not child:
                return None
            out[key] = child
        elif text.startswith("["):
            ok, value = _list_in(text)
            if not ok:
                return None
            out[key] = value
        else:
            ok, value = _scalar_in(text)
            if not ok:
                return None
            out[key] = value
    return out


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
