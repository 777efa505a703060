"""The canonical subset of YAML conv writes its own files in (docs/format.md):
``key: scalar`` lines, one level of nesting, flow lists of strings, a list
of anything else as one line of JSON (YAML's flow style too), strings plain
when unambiguous and JSON-quoted otherwise; written and read here without
ruamel.yaml, whose import alone would cost a fifth of a follow-up's budget.
``parse_canonical`` reads only what ``emit_canonical`` writes (else None:
frontmatter.py hands the text to ruamel); tests/test_format.py checks that
ruamel reads every such text as this module does."""

from __future__ import annotations

import json
import re

TYPE_CHECKING = False  # typing's, without importing typing: PEP 781's idiom
if TYPE_CHECKING:
    from typing import Any

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
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            items = [_scalar_out(v) for v in value]
            if None in items:
                return None
            lines.append(f"{key}: [{', '.join(items)}]")
        elif isinstance(value, list):
            out = _json_out(value)
            if out is None:
                return None
            lines.append(f"{key}: {out}")
        else:
            out = _scalar_out(value)
            if out is None:
                return None
            lines.append(f"{key}: {out}")
    return "".join(line + "\n" for line in lines)


def _json_out(value: list) -> str | None:
    """A list of mappings (an agent's edits, what a tool injected) as one line
    of JSON, which is YAML's flow style too; None for what JSON cannot hold
    or a key that is no text."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
    except (TypeError, ValueError, RecursionError):
        return None
    if not _keys_are_text(value):
        return None
    return _ESCAPE_MORE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def _keys_are_text(value) -> bool:
    """Whether every key in ``value`` is text (json.dumps turns others into text, which reading would not undo)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if not all(isinstance(k, str) for k in item):
                return False
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif not (item is None or isinstance(item, (str, int, float, bool))):
            return False
    return True


def _json_in(text: str) -> tuple[bool, list]:
    """A list written by ``_json_out``, read back (only what it writes, exactly)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return False, []
    return (True, value) if isinstance(value, list) and _json_out(value) == text else (False, [])


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
            ok, value = _json_in(text) if text[1:2] in ("{", "[") else _list_in(text)
            if not ok:
                return None
            out[key] = value
        else:
            ok, value = _scalar_in(text)
            if not ok:
                return None
            out[key] = value
    return out
