"""The tools conv reads, connects to and hands off to, as a person or an
agent reads their names (help texts, completion, the MCP schema): the
registry's (sources/), never a list kept by hand."""

from .. import sources

NAMES = sources.NAMES


def named(part: str = "reader") -> list[tuple[str, str]]:
    """(name, title) of each tool offering ``part``, in the registry's order."""
    return [(found.name, found.title) for found in sources.every(part)]


def said(part: str = "reader", titles: bool = False, last: str = "or") -> str:
    """The tools offering ``part`` as a sentence says them ("llm, chatgpt, … or aichat"; their titles with
    ``titles``)."""
    names = [title if titles else name for name, title in named(part)]
    return ", ".join(names[:-1]) + f" {last} {names[-1]}" if len(names) > 1 else "".join(names)
