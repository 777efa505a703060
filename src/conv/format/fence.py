"""A fenced code block around any text: the fence is longer than every run of
backticks in the text, so nothing inside can close it early."""

import re

_TICKS = re.compile("`+")


def fenced(text: str, info: str = "") -> str:
    fence = "`" * max(3, max(map(len, _TICKS.findall(text)), default=0) + 1)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}"
