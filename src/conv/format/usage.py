"""What a turn says it used (tokens, cost), read so that no text where a
number belongs can break a listing, and summed over a conversation."""

TYPE_CHECKING = False  # typing's, without importing typing: PEP 781's idiom
if TYPE_CHECKING:
    from .model import Turn


USAGE_KEYS = ("prompt_tokens", "completion_tokens", "cost")


def usage_of(usage) -> dict | None:
    """A turn's usage as conv reads it: token counts (whole, not negative) and
    a cost (a number), each only when it is one; a text ("lots") is dropped,
    so no hand edit or foreign file can break the sums every listing makes
    (what is no mapping at all: None)."""
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
    return out or None


def usage_totals(turns: list["Turn"]) -> dict:
    """Tokens in and out over a conversation's answers, and their cost when
    every answer that used tokens has one (an index written by an older conv
    may hold any usage: only numbers count)."""
    used = [u for t in turns if t.role == "assistant" and t.usage and (u := usage_of(t.usage))]
    out = {
        "prompt_tokens": sum(u.get("prompt_tokens") or 0 for u in used),
        "completion_tokens": sum(u.get("completion_tokens") or 0 for u in used),
    }
    costs = [u.get("cost") for u in used]
    out["cost"] = round(sum(costs), 6) if costs and None not in costs else None
    return out
