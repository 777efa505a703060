"""A turn's text as the full-text index reads it, and a query's the same
way: what acts on a terminal taken out (``conv show`` hides it, so it is no
word: the ``31mred`` an escape sequence left), ``ß`` as ``ss`` (as German
writes it in capitals; FTS5's unicode61 folds accents, not this), and each
Chinese or Japanese character a word of its own (they are written without
spaces, so the tokenizer read a whole run as one word and nothing inside it
was found; a query's run is searched as the phrase of its characters), and
an emoji a word (``emoji1f680``: the tokenizer reads them as spaces, so 🚀
found nothing; the skin tones and joiners that build one taken apart).
And an agent's call of conv's own tools is no word of its: its query would
make that session the first hit for the very words it searched for."""

import re

from ..inert import strip

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # kana and ideographs (Hangul has spaces)
_ONE = re.compile(f"([{_CJK}])")
_RUN = re.compile(f"[{_CJK}]+")
_FOLDED = str.maketrans({"ß": "ss", "ẞ": "ss"})
_EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\u2300-\u23FF]")
_JOINING = re.compile("[\u200d\ufe0e\ufe0f]")  # zero-width joiner, text and emoji presentation
_OWN_CALL = re.compile(r"^(`{3,})tool call: (?:mcp__conv__|mcp_conv_|conv[._-])(?:search|show|list|origin)\n.*?^\1$",
                       re.MULTILINE | re.DOTALL)  # a fenced block of conv's tool, as the sources write one


def searchable(text: str | None) -> str | None:
    """``text`` as it is indexed (None stays None: a turn the store could not give)."""
    if not text:
        return text
    text = strip(text)
    if "tool call: " in text:
        text = _OWN_CALL.sub("", text)
    if not text.isascii():
        text = _emoji(_ONE.sub(r" \1 ", text.translate(_FOLDED)))
    return text


def _emoji(text: str) -> str:
    return _EMOJI.sub(lambda m: f" emoji{ord(m[0]):x} ", _JOINING.sub(" ", text)) if _EMOJI.search(text) else text


def asked(text: str) -> str:
    """A query as the index reads it: a run of Chinese or Japanese its characters side by side (a phrase)."""
    if text.isascii():
        return text
    return _emoji(_RUN.sub(lambda run: '"' + " ".join(run[0]) + '"', strip(text).translate(_FOLDED)))
