"""How much a model can read at once (its context window, in tokens), so
that by default a follow-up sends no more of a conversation than fits: the
local model's own ``local.context``, a short table of well-known API models,
a conservative guess for the rest. ``context.max_tokens`` overrides it all.
"""

from ..home.config import Config

# (prefix of the model name, window): first match wins, so longer prefixes come first.
# From each vendor's published model documentation.
KNOWN: tuple[tuple[str, int], ...] = (
    ("gpt-4.1", 1_047_576), ("gpt-5", 400_000), ("gpt-4o", 128_000), ("gpt-4-turbo", 128_000),
    ("gpt-4", 8_192), ("gpt-3.5-turbo", 16_385), ("o1", 200_000), ("o3", 200_000), ("o4", 200_000),
    ("claude", 200_000), ("gemini", 1_048_576), ("deepseek", 64_000), ("mistral-large", 128_000),
    ("llama-3", 131_072), ("llama3", 8_192),
)
UNKNOWN = 8_192  # any model conv knows nothing of: small enough for most servers
ANSWER_SHARE = 4  # of a window, the part kept free for the answer (at most ANSWER_MOST)
ANSWER_MOST = 8_192


def room(provider: str, model: str, config: Config) -> int:
    """Tokens a request to ``model`` may hold, with room left for its answer."""
    if provider == "local":
        return max(config.get("local.context") - config.get("local.max_answer"), 1)
    from .registry import BY_NAME

    window = (BY_NAME[provider].window if provider in BY_NAME else None) or window_of(model)
    return window - min(window // ANSWER_SHARE, ANSWER_MOST)


LARGEST = max(size for _, size in KNOWN)  # no model conv knows reads more


def known(provider: str, model: str) -> bool:
    """Whether ``room`` is the model's own window rather than conv's guess."""
    from .registry import BY_NAME

    return provider == "local" or bool(provider in BY_NAME and BY_NAME[provider].window) or window_of(model) != UNKNOWN


def window_of(model: str) -> int:
    """The window of a model known by name (``vendor/name`` as routers write it), else UNKNOWN."""
    name = model.rsplit("/", 1)[-1].lower()
    return next((size for prefix, size in KNOWN if name.startswith(prefix)), UNKNOWN)
