"""User configuration: a YAML file in the config dir, round-tripped with
ruamel.yaml so the comments and order a person wrote survive ``conv config set``.

Every key conv reads is declared in ``keys.py`` with its type, default and
help. ``conv config set`` refuses anything else, and the file is checked
whole the first time a setting is read (before an ask stores its question):
an impossible value is one line naming the key and the file. A key conv
does not know (a typo made by hand) is left out with a warning that says
which key was meant, as git passes over what it does not know: every
command still works.
"""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from pathlib import Path

from ..errors import UsageError
from ..format.canonical import parse_canonical
from . import paths
from .files import write_atomic
from .keys import RESERVED, SECTIONS, Key, closest, kind, parts, spec
from .values import one_line
from .values import text as text_value

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of every follow-up): PEP 781's idiom
if TYPE_CHECKING:
    from typing import Any


class Config:
    def __init__(self, path: Path | None = None, notice: Callable[[str], None] | None = None):
        self.path = path or paths.config_file()
        self.notice = notice  # hears of the keys left out
        self._doc = None
        self._values: dict[str, Any] | None = None

    @property
    def doc(self):
        """The settings as written, read cheaply: plain files without ruamel (see
        canonical.parse_canonical), anything with comments or styles with it."""
        if self._doc is None:
            text = self._text()
            self._doc = {} if text is None else parse_canonical(text)
            if self._doc is None:
                self._doc = self._load_commented(text)
        return self._doc

    @property
    def values(self) -> dict[str, Any]:
        """Every setting in the file, parsed and checked, all at the first read:
        one bad key stops a command before it does anything, not half-way."""
        if self._values is None:
            self._values = dict(self._checked(self.doc, []))
        return self._values

    def _left_out(self, key: str) -> None:
        if self.notice is not None:
            meant = closest(key)
            self.notice(f"{key} in {self.path}: no such setting{f' (did you mean {meant}?)' if meant else ''}, "
                        f"left out (conv config unset {key})")

    def _text(self) -> str | None:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise UsageError(f"cannot read {self.path}: {exc.strerror}", "Fix it or move it away") from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(f"{self.path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
                             "Fix it or move it away") from None

    def _load_commented(self, text: str | None):
        """The file as ruamel's round-trip mapping, for rewriting it."""
        from ruamel.yaml.comments import CommentedMap

        if text is None:
            return CommentedMap()
        try:
            doc = _yaml().load(text)
        except Exception:
            raise UsageError(f"{self.path} is not valid YAML", "Fix it or move it away") from None
        if doc is None:
            return CommentedMap()
        if not isinstance(doc, dict):
            raise UsageError(f"{self.path} must hold a YAML mapping", "Fix it or move it away")
        return doc

    def _checked(self, node: dict, path: list[str]):
        """(key, parsed value) for each setting under ``node``; the first bad one is refused."""
        for name, value in node.items():
            here = [*path, str(name)]
            key, what = ".".join(here), kind(here)
            if value is None:
                continue  # written without a value: unset
            if "." in here[-1] and not (len(path) == 1 and path[0] in SECTIONS):  # only names (of models) hold dots
                if kind([*path, *here[-1].split(".")]) == "unknown":
                    self._left_out(key)  # a typo, written dotted: as it would be said nested
                    continue
                import shlex

                raise UsageError(f"{key} in {self.path} is written as one dotted key, not nested",
                                 f"Write it as conv config set does: conv config unset {key} && "
                                 f"conv config set {key} {shlex.quote(str(value))}")
            if what == "section":
                if not isinstance(value, dict):
                    raise UsageError(f"{key} in {self.path} must be a mapping of settings, not a single value",
                                     "See conv config get for the keys")
                yield from self._checked(value, here)
                continue
            if what == "unknown":
                self._left_out(key)
                continue
            declared = spec(key, f" in {self.path}")
            try:
                yield key, declared.parse(value)
            except ValueError as exc:
                raise UsageError(f"{key} in {self.path} cannot be {_shown(value)}: {exc}",
                                 f"Fix the file, or: conv config set {key} VALUE") from None

    def raw(self, key: str) -> Any:
        """The value as written in the file (None when it is not set)."""
        node = self.doc
        for part in parts(key):
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node

    def get(self, key: str) -> Any:
        """The value of a declared key, checked, or its default."""
        declared = spec(key)
        if key in self.values:
            return self.values[key]
        return declared.parse(declared.default) if declared.default is not None else None

    def set(self, key: str, text: str) -> None:
        """Write one setting, checked first; the rest of the file stays as it was."""
        from ruamel.yaml.comments import CommentedMap

        declared = spec(key, f" (nothing was written to {self.path})")
        try:
            declared.parse(text)
        except ValueError as exc:
            raise UsageError(f"{key} cannot be {_shown(text)}: {exc}", f"{self.path} is unchanged") from None
        if key.startswith("aliases."):
            self._check_alias(key, text)
        self._doc, self._values = self._load_commented(self._text()), None
        node = self._doc
        *parents, last = parts(key)
        for part in parents:
            if not isinstance(node.get(part), dict):
                node[part] = CommentedMap()
            node = node[part]
        node[last] = _as_written(declared, text)
        out = StringIO()
        _yaml().dump(self._doc, out)
        write_atomic(self.path, out.getvalue())

    def _check_alias(self, key: str, target: str) -> None:
        """An alias leads to a provider or to an endpoint configured here: one
        that leads nowhere would, at its first use, be refused anyway."""
        prefix = target.partition(":")[0].strip()
        known = [*RESERVED, *self.names("endpoints")]
        if prefix not in known:
            raise UsageError(f"{key} cannot be {_shown(target)}: {prefix!r} is neither a provider nor an endpoint",
                             f"{self.path} is unchanged. Set the endpoint first (conv config set endpoints.{prefix}"
                             f".base_url URL), or use one of: {', '.join(known)}")

    def unset(self, key: str) -> bool:
        """Remove a setting (a known one, or one written by mistake); False when it was not set."""
        self._doc, self._values = self._load_commented(self._text()), None
        path = _path_in(self._doc, key)
        if path is None:
            return False
        nodes = [self._doc]
        for part in path[:-1]:
            nodes.append(nodes[-1][part])
        del nodes[-1][path[-1]]
        for parent, node, part in zip(reversed(nodes[:-1]), reversed(nodes[1:]), reversed(path[:-1])):
            if node:  # a mapping left empty goes too (timeout: {})
                break
            del parent[part]
        out = StringIO()
        _yaml().dump(self._doc, out)
        write_atomic(self.path, out.getvalue())
        return True

    def names(self, section: str) -> list[str]:
        """The names configured under ``agents`` or ``prices``."""
        node = self.doc.get(section) if isinstance(self.doc, dict) else None
        return [str(name) for name in node] if isinstance(node, dict) else []


def _path_in(node, key: str) -> list[str] | None:
    """Where dotted ``key`` is in the file's mappings, whatever it is (a name may
    hold dots: prices.gpt-4.1.input; a key written by mistake has no declaration)."""
    if not isinstance(node, dict):
        return None
    if key in node:
        return [key]
    for name in sorted(map(str, node), key=len, reverse=True):
        if key.startswith(name + ".") and (rest := _path_in(node[name], key[len(name) + 1:])):
            return [name, *rest]
    return None


def _as_written(declared: Key, text: str) -> Any:
    """Numbers as numbers for numeric keys; text (a model named 4o, or 4) as the string typed."""
    if declared.parse in (text_value, one_line):
        return text
    for number in (int, float):
        try:
            return number(text)
        except ValueError:
            pass
    return text


def _shown(value: Any) -> str:
    """A bad value in an error line, as YAML spells it, shortened."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, dict)):
        return "a list" if isinstance(value, list) else "a mapping"
    if isinstance(value, float):
        return {"nan": ".nan", "inf": ".inf", "-inf": "-.inf"}.get(repr(value), repr(value))
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:39] + "…"


def _yaml():
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.preserve_quotes = True
    return yaml
