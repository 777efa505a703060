"""What the model is sent: the conversation's system prompt, its earlier
turns in transcript order, then the new question — trimmed from the oldest
end when ``context.max_messages`` or ``context.max_tokens`` say so."""

from .format import Turn
from .providers import Message

CHARS_PER_TOKEN = 4  # a rough count; no tokenizer is worth its import here


def transcript_messages(turns: list[Turn]) -> tuple[str | None, list[Message]]:
    """The latest system prompt, and the user and assistant messages in order
    (empty ones, such as an answer that failed before any text, left out)."""
    system = next((t.content for t in reversed(turns) if t.role == "system"), None)
    return system, [Message(t.role, t.content) for t in turns if t.role in ("user", "assistant") and t.content.strip()]


def build_messages(
    turns: list[Turn],
    question: Turn,
    max_messages: int | None = None,
    max_tokens: int | None = None,
) -> list[Message]:
    system, history = transcript_messages([t for t in turns if t.name != question.name])
    if max_messages is not None:
        history = history[-max_messages:] if max_messages else []
    if max_tokens is not None:
        budget = max_tokens * CHARS_PER_TOKEN
        kept: list[Message] = []
        for message in reversed(history):
            budget -= len(message.content)
            if budget < 0:
                break
            kept.append(message)
        history = kept[::-1]
    head = [Message("system", system)] if system else []
    return head + history + [Message("user", question.content)]
