"""What a record from another tool may hold, declared before anything of it
is trusted (as atuin gives each import source a typed record and drops a line
that does not fit). A reader declares its record as a ``Shape``; the import's
one loop (boundary.py) checks every record against it, and a record that
does not fit is left out and counted with the reason, never half-read.

``check(value)`` returns what the reader may rely on (a record: a new dict
of its declared keys only, each of its declared type, a missing optional key
as None) or raises ``Misfit`` naming where and why. Times are never a misfit:
one that cannot be used is None, and the boundary dates that turn by the ones
around it. Nothing here recurses on the input: a record nested ten thousand
deep costs what its size costs, and is refused past ``DEEPEST``.
"""

import math
from datetime import datetime, timezone

DEEPEST = 64  # levels of nesting a free-form value (a tool call's input) may have
EARLIEST, LATEST = datetime(1970, 1, 1, tzinfo=timezone.utc), datetime(9999, 1, 1, tzinfo=timezone.utc)


class Misfit(Exception):
    """A value that does not have the shape declared for it: ``why``, at
    ``path`` (the keys and positions to it, added as it rises out of the
    containers: nothing is built for the values that fit)."""

    def __init__(self, why: str, path: tuple = ()):
        super().__init__(why)
        self.reason, self.path = why, path

    @property
    def why(self) -> str:
        at = "".join(p if p.startswith("[") else f".{p}" for p in self.path).lstrip(".")
        return f"{at}: {self.reason}" if at else self.reason

    def inside(self, step: str) -> "Misfit":
        return Misfit(self.reason, (step, *self.path))


def _kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


class Shape:
    """A declared shape; ``check`` returns the value as the reader gets it.
    ``kinds``: the Python types a value of it can have (None: any), so that
    OneOf tries only the shapes a value may fit, raising nothing on the way."""

    kinds: tuple | None = None

    def check(self, value):
        raise NotImplementedError


class _Exactly(Shape):
    """Values of one type, as they are (text, true or false): ``plain``, which a
    Record checks without a call (a session is thousands of records)."""

    def __init__(self, plain: type, what: str):
        self.plain, self.kinds, self.what = plain, (plain,), what

    def check(self, value):
        if not isinstance(value, self.plain):
            raise Misfit(f"{_kind(value)}, not {self.what}")
        return value


class _Count(Shape):
    """A whole number of things, zero or more (tokens)."""

    kinds = (int,)

    def check(self, value):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise Misfit(f"{_kind(value) if not isinstance(value, int) or isinstance(value, bool) else value}, "
                             "not a count")
        return value


class _Key(Shape):
    """An id: text, or a whole number (old databases), as text."""

    def check(self, value):
        if isinstance(value, str):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        raise Misfit(f"{_kind(value)}, not an id")


class _Number(Shape):
    kinds = (int, float)

    def check(self, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise Misfit(f"{_kind(value)}, not a number")
        return value


class _Time(Shape):
    """An ISO 8601 time or seconds (or ms, or µs) since 1970, as an aware UTC datetime;
    None when it is neither, or outside 1970-9999 (naive times are UTC: llm
    wrote ``datetime.utcnow()`` in early versions)."""

    def check(self, value):
        return moment(value)


_PER_SECOND = (1, 1_000, 1_000_000)  # a number is seconds, or past 1e11 (the year 5138 in seconds) milliseconds,
# past 1e14 microseconds: each tool counts as it likes (Cline and Cursor in ms)


def moment(value) -> datetime | None:
    """A time as ``Time`` reads it (None: no usable time)."""
    try:
        if isinstance(value, str):
            found = datetime.fromisoformat(value.strip().replace(" ", "T", 1).replace("Z", "+00:00"))
            found = found if found.tzinfo else found.replace(tzinfo=timezone.utc)
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            found = datetime.fromtimestamp(value / _PER_SECOND[(abs(value) >= 1e11) + (abs(value) >= 1e14)],
                                           timezone.utc)
        elif isinstance(value, datetime):  # YAML reads unquoted times as datetimes
            found = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        else:
            return None
        found = found.astimezone(timezone.utc)
    except (ValueError, OverflowError, OSError):
        return None
    return found if EARLIEST <= found < LATEST else None


class _Anything(Shape):
    """Any JSON value of at most DEEPEST levels (kept as it is: a tool's input, shown as JSON)."""

    def check(self, value):
        stack = [(value, 0)]
        while stack:
            item, depth = stack.pop()
            if isinstance(item, (dict, list)):
                if depth >= DEEPEST:
                    raise Misfit(f"nested deeper than {DEEPEST} levels")
                if isinstance(item, dict) and not all(isinstance(k, str) for k in item):
                    raise Misfit("an object with keys that are no text")
                stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
            elif not (item is None or isinstance(item, (str, int, float, bool))):
                raise Misfit(f"{_kind(item)}, not a JSON value")
        return value


Text, Flag = _Exactly(str, "text"), _Exactly(bool, "true or false")
Key, Count, Number, Time, Anything = _Key(), _Count(), _Number(), _Time(), _Anything()


class Maybe(Shape):
    """``shape`` where it fits, else None: for what the words do not depend on
    (a token count), which a record keeps without."""

    def __init__(self, shape: Shape):
        self.shape = shape

    def check(self, value):
        try:
            return self.shape.check(value)
        except Misfit:
            return None


class OneOf(Shape):
    """The first of ``shapes`` that fits."""

    def __init__(self, *shapes: Shape, what: str):
        self.shapes, self.what = shapes, what

    def check(self, value):
        for shape in self.shapes:
            if shape.kinds is not None and not isinstance(value, shape.kinds):
                continue  # cannot fit: not tried
            try:
                return shape.check(value)
            except Misfit:
                continue
        raise Misfit(f"{_kind(value)}, not {self.what}")


class ListOf(Shape):
    """A list whose every item has ``shape``; with ``drop``, items that do not are left out."""

    kinds = (list,)

    def __init__(self, shape: Shape, drop: bool = False):
        self.shape, self.drop = shape, drop

    def check(self, value):
        if not isinstance(value, list):
            raise Misfit(f"{_kind(value)}, not a list")
        out = []
        for n, item in enumerate(value):
            try:
                out.append(self.shape.check(item))
            except Misfit as misfit:
                if not self.drop:
                    raise misfit.inside(f"[{n}]") from None
        return out


class MapOf(Shape):
    """An object whose keys are text and whose every value has ``shape``."""

    kinds = (dict,)

    def __init__(self, shape: Shape):
        self.shape = shape

    def check(self, value):
        if not isinstance(value, dict):
            raise Misfit(f"{_kind(value)}, not an object")
        out = {}
        for key, item in value.items():
            try:
                out[str(key)] = self.shape.check(item)
            except Misfit as misfit:
                raise misfit.inside(str(key)) from None
        return out


class Record(Shape):
    """An object with these keys (others ignored): ``required`` must be there
    and not null; any other may be absent or null (then None)."""

    kinds = (dict,)

    def __init__(self, fields: dict[str, Shape], required: tuple[str, ...] = ()):
        self.fields, self.required = fields, required
        # key, shape, and the one type whose values fit as they are (no call: a session is thousands of records)
        self._plan = tuple((key, shape, getattr(shape, "plain", None)) for key, shape in fields.items())

    def check(self, value):
        if not isinstance(value, dict):
            raise Misfit(f"{_kind(value)}, not an object")
        out, get = {}, value.get
        for key, shape, plain in self._plan:
            item = get(key)
            if item is None:
                if key in self.required:
                    raise Misfit("missing", (key,))
                out[key] = None
            elif item.__class__ is plain:
                out[key] = item
            else:
                try:
                    out[key] = shape.check(item)
                except Misfit as misfit:
                    raise misfit.inside(key) from None
        return out


class Tagged(Shape):
    """An object whose ``key`` says which record it is; a kind not named has
    the shape ``other``, or with none is not part of the conversation (None:
    passed over, not a misfit)."""

    def __init__(self, key: str, kinds: dict[str, Record], other: Record | None = None):
        self.key, self.kinds, self.other = key, kinds, other

    def check(self, value):
        if not isinstance(value, dict):
            raise Misfit(f"{_kind(value)}, not an object")
        kind = value.get(self.key)
        shape = (self.kinds.get(kind) if isinstance(kind, str) else None) or self.other
        if shape is None:
            return None
        checked = shape.check(value)
        checked[self.key] = kind if isinstance(kind, str) else None
        return checked
