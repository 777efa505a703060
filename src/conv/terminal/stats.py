"""How ``conv stats`` reads: a row a group (its keys, each class of tokens,
the cost and a bar of it, or of the tokens where nothing has a price), the
total, and what its cost rests on (models with no price, prices from conv's
own table, imports whose input summed the cache's tokens)."""

from ..format.words import plural
from .render import count, dollars, notice, plain, table

BAR = 24  # characters of the longest bar
HEADERS = ["INPUT", "CACHE W", "CACHE R", "OUTPUT", "COST"]


def stats(found) -> None:
    if not found.groups:
        return notice(f"no answer with usage since {_day(found.since) or 'ever'}"
                      + (f" until {_day(found.until)}" if found.until else ""))
    by_cost = found.total.cost is not None
    most = max((g.cost or 0) if by_cost else _tokens(g) for g in found.groups) or 1
    rows = []
    for g in [*found.groups, found.total]:
        size = (g.cost or 0) if by_cost else _tokens(g)
        bar = "█" * max(round(BAR * size / most), 1 if size else 0) if g is not found.total else ""
        keys = [str(v) or "-" for v in g.keys.values()] if g is not found.total else \
            ["total", *[""] * (len(found.by) - 1)]
        rows.append([*keys, count(g.tokens["prompt_tokens"]), count(g.tokens["cache_write_tokens"]),
                     count(g.tokens["cache_read_tokens"]), count(g.tokens["completion_tokens"]),
                     dollars(g.cost) + ("+?" if g.unpriced and g.cost is not None else ""), bar])
    table([*(b.upper() for b in found.by), *HEADERS, ""], rows)
    plain(f"since {_day(found.since)}" + (f" until {_day(found.until)}" if found.until else "")
          + f": {plural(found.total.answers, 'answer')}")
    if found.unpriced:
        notice(f"no price for {', '.join(found.unpriced[:8])}{' …' if len(found.unpriced) > 8 else ''}: their "
               "cost is not counted (set one: conv config set prices.MODEL.input / .output, per million tokens)")
    if found.shipped:
        notice(f"priced from conv's own table (read {found.prices_read}): {', '.join(found.shipped[:8])}")
    if found.summed:
        notice(f"{plural(found.summed, 'answer')} imported by an older conv count the cache's tokens as input "
               "(conv import --from TOOL again, where the sessions are still there, reads them in their classes)")


def _tokens(group) -> int:
    return sum(group.tokens[k] for k in ("prompt_tokens", "cache_write_tokens", "cache_read_tokens",
                                         "completion_tokens"))


def _day(bound: str | None) -> str:
    return f"{bound[:4]}-{bound[4:6]}-{bound[6:8]}" if bound else ""
