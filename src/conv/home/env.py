"""Environment variables that conv takes as settings, read as text.

Python hands bytes that are not UTF-8 over as lone surrogates, which fail
later, deep in a commit or a request. Each setting read here is refused at
once instead, naming the variable but never showing its value (it may be a
key or a URL with a password)."""

import os

from ..errors import UsageError


def setting(name: str) -> str | None:
    """The variable's value (None when unset or empty), refused if it is not UTF-8."""
    value = os.environ.get(name)
    if not value:
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raw = os.fsencode(value)
        offset = len(value[: exc.start].encode("utf-8"))
        raise UsageError(
            f"the environment variable {name} is not UTF-8 text (byte 0x{raw[offset]:02x} at offset {offset})",
            f"Set it to UTF-8 text, or unset it: unset {name}",
        ) from None
    return value


def lenient(name: str) -> str:
    """A variable that only describes something (e.g. the last shell command):
    bytes that are not UTF-8 are kept readable as \\xNN, never refused."""
    value = os.environ.get(name, "")
    return os.fsencode(value).decode("utf-8", "backslashreplace")
