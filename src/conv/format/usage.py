"""What a turn says it used (tokens in their classes, cost), read so that no
text where a number belongs can break a listing, and summed over a
conversation.

The classes are disjoint, as Anthropic's API counts them: ``prompt_tokens``
is the input read afresh, ``cache_write_tokens`` the input written to a
prompt cache, ``cache_read_tokens`` the input read from one (each priced
apart: a cache read costs about a tenth of input), ``completion_tokens`` the
output, of which ``reasoning_tokens`` were the model's thinking (counted in
the output, said apart). ``cost`` is in US dollars: the tool's own figure
where it recorded one, else what conv's price table made of the tokens.
Format 1's readers of the coding agents added the cache classes into
``prompt_tokens``; such a turn, read, says ``summed`` (its input is every
class together, split unknown)."""

TYPE_CHECKING = False  # typing's, without importing typing: PEP 781's idiom
if TYPE_CHECKING:
    from .model import Turn


TOKENS = ("prompt_tokens", "cache_write_tokens", "cache_read_tokens", "completion_tokens", "reasoning_tokens")
CACHE = ("cache_write_tokens", "cache_read_tokens")
USAGE_KEYS = (*TOKENS, "cost")
# The sources whose format-1 readers summed the cache classes into prompt_tokens (the tokens they recorded:
# Claude Code's, opencode's and pi's cache fields added in; Codex's, Gemini CLI's and Qwen Code's input counts,
# which include what was read from the cache, taken whole).
SUMMED_BY = ("claude-code", "codex", "gemini", "qwen", "opencode", "pi", "copilot")


def usage_of(usage) -> dict | None:
    """A turn's usage as conv reads it: token counts (whole, not negative) and
    a cost (a number), each only when it is one; a text ("lots") is dropped,
    so no hand edit or foreign file can break the sums every listing makes
    (what is no mapping at all: None). ``summed`` stays when it is true."""
    if not isinstance(usage, dict):
        return None
    out = {}
    for key in USAGE_KEYS:
        value = usage.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e15:
            continue
        if key != "cost" and int(value) == value:
            out[key] = int(value)
        elif key == "cost":
            out[key] = float(value)
    if usage.get("summed") is True and out:
        out["summed"] = True
    return out or None


def read_usage(usage, provider: str | None) -> dict | None:
    """A stored turn's usage, with a format-1 import's summed input said (``summed``)."""
    found = usage_of(usage)
    if found and provider in SUMMED_BY and "prompt_tokens" in found and not any(k in found for k in CACHE):
        found["summed"] = True
    return found


def tokens(usage: dict) -> int:
    """Every token a call read or wrote (reasoning is part of the output)."""
    return sum(usage.get(k) or 0 for k in TOKENS if k != "reasoning_tokens")


def added(a: dict | None, b: dict) -> dict:
    """Two calls' usage as one answer's: each class summed (a cost only when both have one)."""
    if not a:
        return dict(b)
    out = {k: (a.get(k) or 0) + (b.get(k) or 0) for k in TOKENS if k in a or k in b}
    if "cost" in a and "cost" in b:
        out["cost"] = a["cost"] + b["cost"]
    return out


def usage_totals(turns: list["Turn"]) -> dict:
    """Tokens in their classes over a conversation's answers, and their cost
    when every answer that used tokens has one (an index written by an older
    conv may hold any usage: only numbers count)."""
    used = [u for t in turns if t.role == "assistant" and t.usage and (u := usage_of(t.usage))]
    out = {key: sum(u.get(key) or 0 for u in used) for key in TOKENS}
    costs = [u.get("cost") for u in used]
    out["cost"] = round(sum(costs), 6) if costs and None not in costs else None
    return out
