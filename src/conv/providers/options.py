"""Per-ask model options (``conv ask -o temperature 0.2``): the options conv
knows, the values each takes, and which providers take which. They are read
and checked before the question is stored or anything is sent, so a typo
costs neither a commit nor a call; a provider is told only those it takes
(``OPTIONS`` on its class) and spells them for its API itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..errors import UsageError
from ..home import values

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of every follow-up): PEP 781's idiom
if TYPE_CHECKING:
    from typing import Any

EFFORTS = ("minimal", "low", "medium", "high")


def _top_p(value: Any) -> float:
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not 0 < number <= 1:  # nan never is
        raise ValueError("use a number above 0 and at most 1, e.g. 0.9")
    return number


def _effort(value: Any) -> str:
    if str(value) not in EFFORTS:
        raise ValueError(f"use {', '.join(EFFORTS[:-1])} or {EFFORTS[-1]}")
    return str(value)


def _stop(text: str) -> str:
    if not text:
        raise ValueError("use the text that ends the answer, e.g. '###'")
    return text


KNOWN: dict[str, Callable[[Any], Any]] = {  # name -> its parser (home/values.py's rules)
    "temperature": values.temperature,
    "top_p": _top_p,
    "seed": values.whole(0, 2**31 - 1),
    "max_tokens": values.whole(1, 10_000_000),
    "stop": lambda value: _stop(values.text(value)),  # repeatable: each -o stop adds one
    "reasoning_effort": _effort,
}
REPEATABLE = ("stop",)


def parse(pairs: list[tuple[str, str]]) -> dict:
    """``-o KEY VALUE`` pairs as typed values; the last of a key wins, and each
    ``stop`` adds to a list. An unknown key or a bad value is a UsageError."""
    options: dict = {}
    for key, raw in pairs:
        parser = KNOWN.get(key)
        if parser is None:
            from difflib import get_close_matches  # only for a key that is wrong

            meant = get_close_matches(key, KNOWN, n=1, cutoff=0.6)
            raise UsageError(f"-o {key}: no such option{f' (did you mean {meant[0]}?)' if meant else ''}",
                             "Options: " + ", ".join(KNOWN))
        try:
            value = parser(raw)
        except ValueError as exc:
            raise UsageError(f"-o {key} {raw!r}: {exc}") from None
        if key in REPEATABLE:
            options.setdefault(key, []).append(value)
        else:
            options[key] = value
    return options


def check(options: dict, provider: object, provider_name: str) -> None:
    """Refuse options the provider does not take, before anything is sent."""
    taken = getattr(provider, "OPTIONS", ())
    refused = [key for key in options if key not in taken]
    if refused:
        takes = f"it takes {', '.join(taken)}" if taken else "it takes none"
        raise UsageError(f"{provider_name} takes no {', '.join(refused)} option ({takes})",
                         "Drop the option, or ask another model with -m")


def taken(options: dict, provider: object) -> dict:
    """Of options conv chose itself (an agent's temperature, what a retried
    answer was asked with, a retry's seed), those the provider takes with a
    value its rule accepts: the rest are dropped, not refused (a stored answer's
    options may come from a hand edit or another store's file)."""
    out = {}
    for key, value in options.items():
        if key in getattr(provider, "OPTIONS", ()) and key in KNOWN:
            kept = _valid(key, value)
            if kept is not None:
                out[key] = kept
    return out


def _valid(key: str, value: Any) -> Any:
    """``value`` as ``key``'s rule reads it (a repeatable one: each of its list), None when it is no such value."""
    items = value if key in REPEATABLE and isinstance(value, list) else [value]
    try:
        if isinstance(value, (dict, bool)) or any(isinstance(v, (dict, list, bool)) or v is None for v in items):
            return None
        parsed = [KNOWN[key](v) for v in items]
    except (ValueError, TypeError):
        return None
    return parsed if key in REPEATABLE else parsed[0]
