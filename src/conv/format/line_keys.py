"""A line of code as conv knows it again wherever it went (``conv blame``,
``conv origin``): its words, spaces at its ends and between them not
counting (a re-indented or re-spaced line is the same line), as a 63-bit
key; a line too short to say anything alone (blank, a brace, ``end``,
``pass``) has none: it is known by the lines around it."""

from hashlib import blake2b

SHORTEST = 4  # characters (spaces left out) a line must have to be known by itself


def key(line: str) -> int | None:
    words = " ".join(line.split())
    if len(words.replace(" ", "")) < SHORTEST or not any(c.isalnum() for c in words):
        return None
    return int.from_bytes(blake2b(words.encode("utf-8", "replace"), digest_size=8).digest(), "big", signed=True)


def lines_of(text: str) -> list[str]:
    """A text's lines as a file holds them (a last newline ends the last line, it makes no line of its own)."""
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
