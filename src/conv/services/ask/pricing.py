"""Usage and cost: what an answer cost, from the token counts the provider
reported and the price table in config (``prices.MODEL.input`` / ``.output``,
and ``.cache_read`` / ``.cache_write`` where the provider counts a cache,
US dollars per million tokens; a cache's tokens without their own price
cost what input costs). Models that run on this machine cost nothing; a
model without a price has no cost rather than a guessed one (conv stats
also reads the table conv ships, providers/prices.py, and says it did)."""

from ...home.config import Config
from ...providers.prices import Price, cost
from ...providers.registry import BY_NAME


def configured(config: Config, provider: str | None, model: str | None) -> Price | None:
    """The price ``prices.MODEL.*`` (or ``prices.PROVIDER:MODEL.*``) gives ``model``; None when it names none."""
    for name in (model, f"{provider}:{model}"):
        if model and name in config.names("prices"):
            side = {s: config.get(f"prices.{name}.{s}") for s in ("input", "output", "cache_write", "cache_read")}
            return Price(side["input"] or 0.0, side["output"] or 0.0, side["cache_write"], side["cache_read"])
    return None


def answer_cost(config: Config, provider: str, model: str, usage: dict) -> float | None:
    if provider in BY_NAME and BY_NAME[provider].free:
        return 0.0
    price = configured(config, provider, model)
    return round(cost(price, usage), 6) if price is not None else None
