"""A small table of models' list prices, shipped with conv so that ``conv
stats`` can say what work cost with no network: US dollars per million
tokens of each class (input, output, a cache's writes and reads), as the
providers published them, with the day they were read. A model is found by
its name, a provider's prefix (``anthropic/``, ``openai:``) and a date or
tag at its end left out; ``prices.MODEL.*`` in the config goes first. A
model found nowhere has no price: its cost is unknown, never zero."""

from ..records import dataclass

READ = "2026-12-01"  # the day these prices were read off the providers' pages


@dataclass
class Price:
    input: float
    output: float
    cache_write: float | None = None  # None: what input costs
    cache_read: float | None = None


# the model's name as the tools record it, its start -> its price (the longest start that fits wins)
TABLE = {
    "claude-opus-4-5": Price(5, 25, 6.25, 0.5), "claude-opus-4-1": Price(15, 75, 18.75, 1.5),
    "claude-opus-4": Price(15, 75, 18.75, 1.5), "claude-sonnet-4": Price(3, 15, 3.75, 0.3),
    "claude-haiku-4": Price(1, 5, 1.25, 0.1), "claude-3-7-sonnet": Price(3, 15, 3.75, 0.3),
    "claude-3-5-sonnet": Price(3, 15, 3.75, 0.3), "claude-3-5-haiku": Price(0.8, 4, 1, 0.08),
    "gpt-5-codex": Price(1.25, 10, None, 0.125), "gpt-5-mini": Price(0.25, 2, None, 0.025),
    "gpt-5-nano": Price(0.05, 0.4, None, 0.005), "gpt-5": Price(1.25, 10, None, 0.125),
    "gpt-4.1-mini": Price(0.4, 1.6, None, 0.1), "gpt-4.1-nano": Price(0.1, 0.4, None, 0.025),
    "gpt-4.1": Price(2, 8, None, 0.5), "gpt-4o-mini": Price(0.15, 0.6, None, 0.075),
    "gpt-4o": Price(2.5, 10, None, 1.25), "o4-mini": Price(1.1, 4.4, None, 0.275), "o3": Price(2, 8, None, 0.5),
    "gemini-2.5-pro": Price(1.25, 10, None, 0.31), "gemini-2.5-flash-lite": Price(0.1, 0.4, None, 0.025),
    "gemini-2.5-flash": Price(0.3, 2.5, None, 0.075),
}


def shipped(model: str | None) -> Price | None:
    """The table's price of ``model`` (None: it has none)."""
    if not model:
        return None
    name = model.rsplit("/", 1)[-1].rsplit(":", 1)[-1].lower()
    found = max((start for start in TABLE if name.startswith(start)), key=len, default=None)
    return TABLE[found] if found else None


def cost(price: Price, usage: dict) -> float:
    """What ``usage`` (format/usage.py's classes) costs at ``price``, in US dollars."""
    rates = {"prompt_tokens": price.input, "completion_tokens": price.output,
             "cache_write_tokens": price.input if price.cache_write is None else price.cache_write,
             "cache_read_tokens": price.input if price.cache_read is None else price.cache_read}
    return sum(rate * (usage.get(key) or 0) for key, rate in rates.items()) / 1e6
