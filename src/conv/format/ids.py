"""Conversation and turn identifiers.

A conversation id is an optional agent prefix and 12 random characters of
Crockford's base32 (60 bits: two machines creating 100,000 conversations each
collide with odds of about 1 in 10^8), e.g. ``k3f9x2ab7q4m`` or
``coder-k3f9x2ab7q4m``. People type a unique prefix or suffix of it.

A turn's name is its UTC time to the millisecond, a random tag and its role,
e.g. ``20261121-175520.123-a7k2-user``: names sort by time and two machines
appending to one conversation never pick the same path.
"""

import os
import re
from datetime import datetime, timezone

ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford: no i, l, o, u
TOKEN_LENGTH = 12
SHORT_LENGTH = 6  # shortest id shown on screen; longer where needed to be unique

_AGENT = r"[a-z][a-z0-9_]{0,23}"
ID_RE = re.compile(rf"^(?:{_AGENT}-)?[{ALPHABET}]{{{TOKEN_LENGTH}}}$")
# What a user may type as a reference: letters, digits, '-' and '_' only.
REF_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TURN_NAME = r"\d{8}-\d{6}\.\d{3}-[0-9a-z]{4}-(?:user|assistant|system)"  # a turn's file is NAME.md
TURN_RE = re.compile(rf"^{TURN_NAME}$")


def random_token(length: int = TOKEN_LENGTH) -> str:
    """``length`` characters, 5 random bits each (os.urandom: ``secrets`` costs
    6 ms of import on every follow-up)."""
    return token_of_bytes(os.urandom((5 * length + 7) // 8), length)


def token_of_bytes(data: bytes, length: int = TOKEN_LENGTH) -> str:
    """``length`` characters of the alphabet, 5 bits of ``data`` each (random
    bytes, or a digest: the same token wherever it is worked out)."""
    number = int.from_bytes(data, "big")
    return "".join(ALPHABET[(number >> (5 * i)) & 31] for i in range(length))


def new_conversation_id(agent: str | None = None) -> str:
    token = random_token()
    return f"{agent}-{token}" if agent else token


def token_of(conv_id: str) -> str:
    """The random part of an id (after any agent prefix)."""
    return conv_id.rsplit("-", 1)[-1]


def shard_of(conv_id: str) -> str:
    """The directories a conversation lives under: its random part's first two
    characters, one level each (``k/3``), so no tree a commit rewrites holds
    more than 32 entries above the conversation (docs/format.md)."""
    token = token_of(conv_id)
    return f"{token[0]}/{token[1]}"


def conversation_path(conv_id: str) -> str:
    return f"conversations/{shard_of(conv_id)}/{conv_id}"


def new_turn_name(role: str, now: datetime | None = None) -> str:
    now = now or datetime.now(timezone.utc)
    stamp = now.strftime("%Y%m%d-%H%M%S.") + f"{now.microsecond // 1000:03d}"
    return f"{stamp}-{random_token(4)}-{role}"


def attachment_name(turn_name: str, n: int, original: str) -> str:
    """Where the ``n``th file sent with a turn is kept, beside it: ``<turn>.<n>.<ext>``.
    Never ``.md`` (that is a turn's), and it sorts just before its turn's file."""
    ext = original.rsplit(".", 1)[-1].lower() if "." in original.rsplit("/", 1)[-1] else ""
    ext = "".join(c for c in ext if c.isascii() and c.isalnum())[:10] or "bin"
    return f"{turn_name}.{n}.{'markdown' if ext == 'md' else ext}"


def looks_like_ref(word: str) -> bool:
    """Whether a word after ``-c`` is plausibly a typed id rather than prose.

    Six id characters, or four with a digit, or an agent prefix: English words
    rarely pass, so ``conv ask -c "why did it fail"`` stays a question.
    """
    word = word.lower()
    if not REF_RE.match(word):
        return False
    token = token_of(word)
    if "-" in word and token and set(token) <= set(ALPHABET):
        return True
    if not token or not set(token) <= set(ALPHABET):
        return False
    return len(token) >= SHORT_LENGTH or (len(token) >= 4 and any(c.isdigit() for c in token))


def turn_time(name: str) -> str:
    """The ISO time encoded in a turn's name (``20261121-175520.123-…`` →
    ``2026-11-21T17:55:20.123Z``); lets the index date a conversation without
    reading its turns."""
    d, t = name[:8], name[9:19]
    return f"{d[:4]}-{d[4:6]}-{d[6:8]}T{t[:2]}:{t[2:4]}:{t[4:10]}Z"
