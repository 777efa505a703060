"""Text typed or passed in bytes that are not UTF-8. Python hands such bytes
over as lone surrogates (surrogateescape), which would fail much later, deep
in a commit or a query; conv refuses them where they come in (arguments in
__main__.py, chat lines in chat.py), saying which text and where."""


def refuse_undecodable(text: str, what: str, hint: str) -> None:
    """Raise a one-line UsageError if ``text`` holds bytes that are not UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        from ...errors import UsageError

        raise UsageError(f"{what} is not UTF-8 text: {shown(text)}", f"{hint}; nothing was done") from None


def shown(text: str, width: int = 72) -> str:
    """``text`` readable and quoted (a long one cut to ``width`` characters
    around its first bad byte); bytes that are not UTF-8, and control
    characters, written as \\xNN."""
    import os
    import re

    raw = os.fsencode(text)  # the bytes as they were given
    try:
        raw.decode("utf-8")
        bad = len(raw)
    except UnicodeDecodeError as exc:
        bad = exc.start
    before, after = raw[:bad].decode("utf-8"), raw[bad:].decode("utf-8", "backslashreplace")
    start = max(0, min(len(before) - width // 3, len(before) + len(after) - width))
    cut = "…" * (start > 0), "…" * (start + width < len(before) + len(after))
    text = re.sub(r"[\x00-\x1f\x7f-\x9f]", lambda m: f"\\x{ord(m[0]):02x}", (before + after)[start : start + width])
    return f"{cut[0]}'{text}'{cut[1]}"
