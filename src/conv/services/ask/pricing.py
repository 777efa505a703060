"""Usage and cost: what an answer cost, from the token counts the provider
reported and the price table in config (``prices.MODEL.input`` / ``.output``,
and ``.cache_read`` / ``.cache_write`` where the provider counts a cache,
US dollars per million tokens; a cache's tokens without their own price
cost what input costs). Models that run on this machine cost nothing;
a model without a price has no cost rather than a guessed one."""

from ...home.config import Config
from ...providers.registry import BY_NAME

SIDES = {"input": "prompt_tokens", "cache_write": "cache_write_tokens", "cache_read": "cache_read_tokens",
         "output": "completion_tokens"}  # a price's name -> the tokens it is for
INSTEAD = {"cache_write": "input", "cache_read": "input"}  # a price not set: the one used in its place


def cost(config: Config, provider: str, model: str, usage: dict) -> float | None:
    if provider in BY_NAME and BY_NAME[provider].free:
        return 0.0
    for name in (model, f"{provider}:{model}"):
        if name in config.names("prices"):
            rate = {side: config.get(f"prices.{name}.{side}") for side in SIDES}
            spent = sum((rate[side] if rate[side] is not None else rate[INSTEAD.get(side, side)] or 0.0)
                        * (usage.get(key) or 0) for side, key in SIDES.items())
            return round(spent / 1e6, 6)
    return None
