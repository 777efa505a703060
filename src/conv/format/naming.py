"""What a conversation is called and tagged: a title made from its first
question, and what a tag may be (one word, nothing YAML reads apart)."""

TITLE_LENGTH = 60


def is_tag(text: str) -> bool:
    """A tag: one word, no + or - in front (conv tag's signs), nothing a YAML list reads apart."""
    return bool(text) and text[0] not in "+-" and not any(c.isspace() or c in ",[]{}" for c in text)


def title_from(text: str) -> str:
    """A title made from a first question: its first line, on one line, cut
    at a word near TITLE_LENGTH characters."""
    line = next((" ".join(l.split()) for l in text.splitlines() if l.strip()), "")
    if len(line) <= TITLE_LENGTH:
        return line
    cut = line[:TITLE_LENGTH].rsplit(" ", 1)[0]
    return (cut if len(cut) > TITLE_LENGTH // 2 else line[:TITLE_LENGTH]) + "…"
