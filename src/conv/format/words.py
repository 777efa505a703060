"""Counts and spans of time as conv writes them in prose: "1 conversation",
"3 turns", "40 minutes", never "1 conversations" or "0h 0m"."""


def plural(count: int, noun: str) -> str:
    """``1 conversation``, ``2 conversations``."""
    return f"{count} {noun}{'s' * (count != 1)}"


def span(seconds: float) -> str:
    """``3 days``, ``5 hours``, ``40 minutes``, ``12 seconds``: the largest unit that fits."""
    unit, size = next(((u, s) for u, s in (("day", 86400), ("hour", 3600), ("minute", 60)) if seconds >= s),
                      ("second", 1))
    return plural(int(seconds // size), unit)
