"""Usage and cost: what an answer cost, from the token counts the provider
reported and the price table in config (``prices.MODEL.input`` / ``.output``,
US dollars per million tokens). Models that run on this machine cost nothing;
a model without a price has no cost rather than a guessed one."""

from ...format.model import Turn
from ...home.config import Config

FREE_PROVIDERS = ("local", "ollama")


def cost(config: Config, provider: str, model: str, usage: dict) -> float | None:
    if provider in FREE_PROVIDERS:
        return 0.0
    for name in (model, f"{provider}:{model}"):
        if name in config.names("prices"):
            rates = [config.get(f"prices.{name}.{side}") or 0.0 for side in ("input", "output")]
            counts = [usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0]
            return round(sum(r * n for r, n in zip(rates, counts)) / 1e6, 6)
    return None


def totals(turns: list[Turn]) -> dict:
    """Tokens in and out over a conversation's answers, and their cost when
    every answer that used tokens has one."""
    used = [t.usage for t in turns if t.role == "assistant" and t.usage]
    out = {
        "prompt_tokens": sum(u.get("prompt_tokens") or 0 for u in used),
        "completion_tokens": sum(u.get("completion_tokens") or 0 for u in used),
    }
    costs = [u.get("cost") for u in used]
    out["cost"] = round(sum(costs), 6) if costs and None not in costs else None
    return out


def dollars(amount: float | None) -> str:
    if amount is None:
        return "?"
    return f"${amount:.4f}" if amount < 1 else f"${amount:.2f}"
