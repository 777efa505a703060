"""Usage and cost: what an answer cost, from the token counts the provider
reported and the price table in config (``prices.MODEL.input`` / ``.output``,
US dollars per million tokens). Models that run on this machine cost nothing;
a model without a price has no cost rather than a guessed one."""

from ...home.config import Config
from ...providers.registry import BY_NAME


def cost(config: Config, provider: str, model: str, usage: dict) -> float | None:
    if provider in BY_NAME and BY_NAME[provider].free:
        return 0.0
    for name in (model, f"{provider}:{model}"):
        if name in config.names("prices"):
            rates = [config.get(f"prices.{name}.{side}") or 0.0 for side in ("input", "output")]
            counts = [usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0]
            return round(sum(r * n for r, n in zip(rates, counts)) / 1e6, 6)
    return None
