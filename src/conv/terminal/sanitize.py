"""Model output is data: before it reaches a terminal, every escape sequence
(colours, OSC titles and clipboard writes, screen clears) and every other
control character except newline and tab is removed. The store keeps the
text as the model sent it."""

import re

# CSI ... final byte, OSC/DCS/APC/PM/SOS ... terminator, and two-byte ESC sequences.
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|[\x90\x9d\x98\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -~]?"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    """Text safe to print: no escape sequences, no control characters but \\n and \\t."""
    return _CONTROL.sub("", _SEQUENCE.sub("", text))


# A sequence that has all its bytes (used to decide whether a chunk's tail waits).
_COMPLETE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
    r"|\x1b[^\[\]PX^_]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|[\x90\x9d\x98\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
)
_INTRODUCERS = "\x1b\x9b\x90\x9d\x98\x9e\x9f"


class StreamCleaner:
    """``clean`` for a stream cut into arbitrary chunks: a sequence split across
    two chunks is held back until it is complete, so it is removed whole."""

    def __init__(self):
        self._held = ""

    def feed(self, chunk: str) -> str:
        text = self._held + chunk
        cut = max(text.rfind(c) for c in _INTRODUCERS)
        if cut >= 0 and len(text) - cut < 256 and not _COMPLETE.match(text, cut):
            self._held, text = text[cut:], text[:cut]
        else:
            self._held = ""
        return clean(text)

    def flush(self) -> str:
        held, self._held = self._held, ""
        return clean(held)
