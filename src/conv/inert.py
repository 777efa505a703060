"""What in a text acts on a terminal rather than shows: escape sequences
(colours, OSC titles and clipboard writes, screen clears), every other
control character but newline and tab (C0, DEL and C1, such as U+009B, the
one-character CSI) and every bidirectional override, isolate and mark
(U+202A–U+202E, U+2066–U+2069, U+061C, U+200E, U+200F: they make a line read
differently from what it holds). ``strip`` takes them out: for what is
printed (terminal/sanitize.py), put in a page (conv share) or in a shell's
command line (command mode)."""

import re

# CSI ... final byte, OSC/DCS/APC/PM/SOS ... terminator, and two-byte ESC sequences.
SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|[\x90\x9d\x98\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -~]?"
)
BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
CONTROL = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{BIDI}]")


def strip(text: str) -> str:
    """No escape sequences, no control or bidi characters but \\n and \\t."""
    return CONTROL.sub("", SEQUENCE.sub("", text))
