"""Text a turn can hold: what the store writes as UTF-8, whoever wrote it (an
imported session, a model's streamed answer)."""

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def sound(text: str) -> str:
    """Text that can be written as UTF-8: no NUL, a lone surrogate (JSON's ``"\\ud800"``) as U+FFFD (looked
    for only when the text will not encode: a 30 MB message costs an encode, not a search)."""
    text = text.replace("\x00", "") if "\x00" in text else text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text
