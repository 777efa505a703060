"""Usage and cost: what an answer cost, from the token counts the provider
reported and the price table in config (``prices.MODEL.input`` / ``.output``,
and ``.cache_read`` / ``.cache_write`` where the provider counts a cache,
US dollars per million tokens; a cache's tokens without their own price
cost what input costs). Models that run on this machine cost nothing; a
model without a price has no cost rather than a guessed one. conv stats
prices what the config leaves out as the table conv ships says
(providers/prices.py: its date is said); an answer's stored cost is your
prices' alone."""

from ...home.config import Config
from ...providers.prices import Price, cost, shipped
from ...providers.registry import BY_NAME


def configured(config: Config, provider: str | None, model: str | None, table: bool = True) \
        -> tuple[Price, bool] | None:
    """The price of ``model``: what ``prices.MODEL.*`` (or ``prices.PROVIDER:MODEL.*``) says, each class it
    leaves out as the table conv ships says it (``table``: else none); and whether the table said any of it.
    None when input or output has no price (never a class counted free)."""
    table = shipped(model) if table else None
    for name in (model, f"{provider}:{model}"):
        if model and name in config.names("prices"):
            side = {s: config.get(f"prices.{name}.{s}") for s in ("input", "output", "cache_write", "cache_read")}
            merged = {s: side[s] if side[s] is not None else getattr(table, s, None) for s in side}
            if merged["input"] is None or merged["output"] is None:
                return None
            return Price(**merged), table is not None and any(side[s] is None for s in side)
    return (table, True) if table is not None else None


def answer_cost(config: Config, provider: str, model: str, usage: dict) -> float | None:
    if provider in BY_NAME and BY_NAME[provider].free:
        return 0.0
    price = configured(config, provider, model, table=False)  # what is stored with the answer: your prices alone
    return round(cost(price[0], usage), 6) if price is not None else None
