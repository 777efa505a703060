"""``conv stats``: what the work cost, from the index (index/spending.py):
tokens in their classes and cost, grouped by project, source, model, day,
week or month (several at once), over a span of days. Cost is the tool's
own figure where it recorded one (opencode, pi, Cline), else what
``prices.MODEL.*`` in the config or the small table conv ships
(providers/prices.py) makes of the tokens; what has no price is said, never
counted as nothing. A format-1 import whose input summed the cache's tokens
is counted as it is, and said."""

from datetime import date

from ..errors import UsageError
from ..format.usage import TOKENS
from ..providers.prices import READ, cost
from ..records import dataclass, field
from .ask.pricing import configured
from .browse import filters_from, since
from .workspace import Workspace

BY = ("project", "source", "model", "day", "week", "month")
OWN = "conv"  # the source of conv's own answers


@dataclass
class Group:
    keys: dict  # by -> value
    tokens: dict  # class -> count
    cost: float | None  # None: no answer of it has a price
    answers: int
    unpriced: int = 0  # answers with no price anywhere (their cost not in ``cost``)

    def to_dict(self) -> dict:
        return {**self.keys, **self.tokens, "cost": None if self.cost is None else round(self.cost, 6),
                "answers": self.answers, "unpriced_answers": self.unpriced}


@dataclass
class Stats:
    by: list
    since: str
    until: str | None
    groups: list
    total: Group
    unpriced: list = field(default_factory=list)  # models with no price
    shipped: list = field(default_factory=list)  # models priced from conv's own table (its date: prices.READ)
    summed: int = 0  # answers of a format-1 import whose input holds the cache's tokens
    prices_read: str = READ  # the day conv's own table was read

    def to_dict(self) -> dict:
        return {"by": self.by, "since": self.since, "until": self.until,
                "groups": [g.to_dict() for g in self.groups], "total": self.total.to_dict(),
                "unpriced_models": self.unpriced, "priced_from_table": self.shipped, "prices_read": self.prices_read,
                "summed_answers": self.summed}


def stats(ws: Workspace, by: list[str], since: str | None = "30d", until: str | None = None, here: bool = False,
          source: str | None = None) -> Stats:
    unknown = [b for b in by if b not in BY]
    if unknown:
        raise UsageError(f"--by {unknown[0]!r}: conv groups by none such", f"Use one of: {', '.join(BY)}")
    by = list(dict.fromkeys(by))  # (--by model --by model: once)
    start, end = _bound(since, "--since"), _bound(until, "--until")
    if start and end and start >= end:
        raise UsageError(f"--since {since} is not before --until {until}", "Give the span's start first")
    rows = ws.index.refresh().spending(filters_from(here=here, source=source), start, end)
    prices: dict = {}
    groups: dict = {}
    total = _group({})
    summed = 0
    for day, project, tool, model, *counts in rows:
        tokens, unpriced_tokens = dict(zip(TOKENS, counts[:5])), dict(zip(TOKENS, counts[5:10]))
        recorded, answers, costed, summed_here = counts[10:]
        summed += summed_here or 0
        price = prices.setdefault((tool, model), configured(ws.config, tool, model))
        spent = recorded if costed else None
        if costed < answers and price is not None:  # the answers no tool gave a cost for, at the price
            spent = (spent or 0.0) + cost(price[0], unpriced_tokens)
        keys = _keys(by, day, project, tool or OWN, model)
        for group in (groups.setdefault(tuple(keys.items()), _group(keys)), total):
            group.tokens = {k: group.tokens[k] + tokens[k] for k in TOKENS}
            group.answers += answers
            group.unpriced += answers - costed if price is None else 0
            group.cost = group.cost if spent is None else (group.cost or 0.0) + spent
    return Stats(by, start or "", end, sorted(groups.values(), key=lambda g: tuple(str(v) for v in g.keys.values())),
                 total, sorted({m for (_, m), p in prices.items() if p is None and m}),
                 sorted({m for (_, m), p in prices.items() if p is not None and p[1] and m}), summed)


def _group(keys: dict) -> Group:
    return Group(keys, dict.fromkeys(TOKENS, 0), None, 0)


def _keys(by: list[str], day: str, project, tool: str, model) -> dict:
    moment = date(int(day[:4]), int(day[4:6]), int(day[6:8]))
    values = {"project": project or "", "source": tool, "model": model or "",
              "day": moment.isoformat(), "month": moment.strftime("%Y-%m"),
              "week": f"{moment.isocalendar().year}-W{moment.isocalendar().week:02d}"}
    return {b: values[b] for b in by}


def _bound(text: str | None, option: str) -> str | None:
    """A span's end as turn names begin (YYYYMMDD-HHMMSS): an age back from now (30d, 12h) or a date."""
    if text is None:
        return None
    try:
        moment = since(text)
    except UsageError:
        raise UsageError(f"{option} {text!r} is neither an age (30d, 12h) nor a date (2026-11-01)",
                         f"e.g. {option} 7d") from None
    return moment[:4] + moment[5:7] + moment[8:10] + "-" + moment[11:13] + moment[14:16] + moment[17:19]
