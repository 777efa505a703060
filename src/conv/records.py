"""conv's data classes, made without the dataclasses module.

Importing dataclasses brings inspect, ast, dis and tokenize, and it builds
every class's methods with exec as the class is made: on ``conv ask -c``, run
from a key binding, that was 12 ms of a 100 ms budget for about thirty
classes. These classes get the same ``__init__`` (fields in order, defaults,
``field(default_factory=)``, ``__post_init__``; compiled at a class's first
instance), ``__repr__`` and ``__eq__`` (and, frozen, refuse changes and hash)
from their annotations; ``replace`` and ``asdict`` work as dataclasses' do.
Only what conv uses is here.
"""

_MISSING = object()


class FrozenInstanceError(AttributeError):
    pass


class _Field:
    __slots__ = ("default", "factory")

    def __init__(self, default, factory):
        self.default, self.factory = default, factory


def field(*, default=_MISSING, default_factory=_MISSING):
    return _Field(default, default_factory)


def dataclass(cls=None, *, frozen: bool = False):
    """``@dataclass`` or ``@dataclass(frozen=True)``."""
    def make(cls):
        names, defaults, factories = [], {}, {}
        for base in reversed(cls.__mro__[1:-1]):  # a base class's fields come first
            if "__record_fields__" in base.__dict__:
                names += [name for name in base.__record_fields__ if name not in names]
                defaults.update(base.__record_defaults__)
                factories.update(base.__record_factories__)
        for name in cls.__dict__.get("__annotations__", {}):
            if name not in names:
                names.append(name)
            value = cls.__dict__.get(name, _MISSING)
            if isinstance(value, _Field):
                delattr(cls, name)
                if value.factory is not _MISSING:
                    factories[name] = value.factory
                elif value.default is not _MISSING:
                    defaults[name] = value.default
                    setattr(cls, name, value.default)
            elif value is not _MISSING:
                defaults[name] = value
        cls.__record_defaults__, cls.__record_factories__ = defaults, factories
        cls.__record_fields__ = tuple(names)
        cls.__init__ = _initializer(cls, tuple(names), defaults, factories, frozen)
        for name, method in (("__repr__", _repr), ("__eq__", _eq)):
            if name not in cls.__dict__:  # a class's own stays, as with dataclasses
                setattr(cls, name, method)
        if frozen:
            cls.__setattr__ = cls.__delattr__ = _refuse
            cls.__hash__ = _hash
        else:
            cls.__hash__ = None
        return cls

    return make if cls is None else make(cls)


def _initializer(cls, names, defaults, factories, frozen):
    """An ``__init__`` that, at the class's first instance, compiles the real
    one (as dataclasses does for every class at import) and puts it in its
    place: a class a run never instantiates costs nothing, and one made
    180,000 times (an index build) gets a plain function."""
    def __init__(self, *args, **kwargs):
        compiled = _compile(cls, names, defaults, factories, frozen)
        cls.__init__ = compiled
        compiled(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _compile(cls, names, defaults, factories, frozen):
    params, body, scope = [], [], {"_FACTORY": _MISSING, "_set": object.__setattr__}
    for name in names:
        if name in factories:
            params.append(f"{name}=_FACTORY")
            scope[f"_factory_{name}"] = factories[name]
            body.append(f"if {name} is _FACTORY: {name} = _factory_{name}()")
        elif name in defaults:
            params.append(f"{name}=_default_{name}")
            scope[f"_default_{name}"] = defaults[name]
        else:
            params.append(name)
        body.append(f"_set(self, {name!r}, {name})" if frozen else f"self.{name} = {name}")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body or ["pass"])
    exec(source, scope)  # noqa: S102 - source made above from the field names alone
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _values(obj) -> tuple:
    return tuple(getattr(obj, name) for name in obj.__record_fields__)


def _repr(self) -> str:
    inside = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_fields__)
    return f"{type(self).__qualname__}({inside})"


def _eq(self, other):
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _values(self) == _values(other)


def _hash(self) -> int:
    return hash(_values(self))


def _refuse(self, name, value=None):
    raise FrozenInstanceError(f"cannot change field {name!r} of a frozen {type(self).__qualname__}")


def replace(obj, **changes):
    """A copy of ``obj`` with ``changes``."""
    return obj.__class__(**{name: getattr(obj, name) for name in obj.__record_fields__} | changes)


def asdict(obj):
    """``obj`` as nested dicts and lists, as dataclasses.asdict makes it."""
    if hasattr(type(obj), "__record_fields__"):
        return {name: asdict(getattr(obj, name)) for name in obj.__record_fields__}
    if isinstance(obj, (list, tuple)):
        return type(obj)(asdict(item) for item in obj)
    if isinstance(obj, dict):
        return {asdict(k): asdict(v) for k, v in obj.items()}
    return obj
