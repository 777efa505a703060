"""conv.records stands in for the dataclasses module on conv's start-up path
(issue 15): the same class definitions must behave as dataclasses make them."""

import dataclasses

import pytest

from conv import records


def define(make, field):
    """The same little family of classes, made by MAKE (records' or dataclasses')."""

    @make
    class Base:
        """a base"""
        ids: list
        commit: str | None = None

    @make
    class Child(Base):
        """a child"""
        remotes: list = field(default_factory=list)
        count: int = 0

        def __post_init__(self):
            self.seen = len(self.ids)

    @make(frozen=True)
    class Frozen:
        sha: str
        mode: int = 0o100644

    return Base, Child, Frozen


@pytest.fixture(params=["records", "dataclasses"])
def family(request):
    return define(records.dataclass, records.field) if request.param == "records" else \
        define(dataclasses.dataclass, dataclasses.field)


def test_the_same_behaviour_as_dataclasses(family):
    Base, Child, Frozen = family
    child = Child([1, 2], "abc", count=3)
    assert (child.ids, child.commit, child.remotes, child.count, child.seen) == ([1, 2], "abc", [], 3, 2)
    assert Child([1]).remotes is not Child([1]).remotes  # a fresh list each time
    assert Child([1]) == Child([1]) and Child([1]) != Child([2]) and Child([1]) != Base([1])
    assert repr(Base([1], "x")).endswith("Base(ids=[1], commit='x')")
    assert Base.commit is None and Child.count == 0
    with pytest.raises(TypeError):
        hash(child)
    with pytest.raises(TypeError):
        Base()
    with pytest.raises(TypeError):
        Base([1], nope=2)

    frozen = Frozen("a")
    assert frozen.mode == 0o100644 and hash(frozen) == hash(Frozen("a")) and {frozen, Frozen("a")} == {frozen}
    with pytest.raises(AttributeError):
        frozen.sha = "b"

    replace = records.replace if hasattr(type(child), "__record_fields__") else dataclasses.replace
    asdict = records.asdict if hasattr(type(child), "__record_fields__") else dataclasses.asdict
    changed = replace(child, count=9)
    assert (changed.count, changed.ids, changed.seen, child.count) == (9, [1, 2], 2, 3)
    assert asdict(Child([Frozen("z")], remotes=["o"])) == {
        "ids": [{"sha": "z", "mode": 0o100644}], "commit": None, "remotes": ["o"], "count": 0}
