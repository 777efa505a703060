"""Counts, spans of time and folders as conv writes them in prose: "1
conversation", "3 turns", "40 minutes", "~/src/app", never "1 conversations",
"0h 0m" or "/home/ana/src/app"."""

import os


def plural(count: int, noun: str) -> str:
    """``1 conversation``, ``2 conversations``."""
    return f"{count} {noun}{'s' * (count != 1)}"


def span(seconds: float) -> str:
    """``3 days``, ``5 hours``, ``40 minutes``, ``12 seconds``: the largest unit that fits."""
    unit, size = next(((u, s) for u, s in (("day", 86400), ("hour", 3600), ("minute", 60)) if seconds >= s),
                      ("second", 1))
    return plural(int(seconds // size), unit)


def folder(path: str) -> str:
    """A path under the home folder as ``~/…`` (as shells and git write them); any other as it is."""
    home = os.path.expanduser("~")
    if not isinstance(path, str) or home in ("~", "/") or not os.path.isabs(path):
        return path
    if path == home:
        return "~"
    return "~" + path[len(home):] if path.startswith(home.rstrip("/") + "/") else path
