"""What the model is sent: the whole conversation while it fits the budget
(``context.max_messages`` earlier messages, about ``context.max_tokens``
tokens of them); beyond that, the system prompt, a stored summary of the older
turns and the latest ones.

The summary is made by the model (services/summary.py) and kept in
conversation.md as ``context_summary: {through, text, model}``. When the
budget is exceeded the cut is made so that only half the budget is kept
verbatim: the next few follow-ups then fit beside the same summary, and the
model is asked to extend it only every few turns, not at every one.
"""

from dataclasses import dataclass, field

from ...format.model import Conversation, Turn
from ...providers import Message

CHARS_PER_TOKEN = 4  # a rough count; no tokenizer is worth its import here
SUMMARY_HEADING = "Summary of the earlier part of this conversation:"


@dataclass
class Budget:
    max_messages: int | None = None
    max_tokens: int | None = None

    def fits(self, messages: list[Message], share: float = 1.0) -> bool:
        if self.max_messages is not None and len(messages) > self.max_messages * share:
            return False
        return self.max_tokens is None or tokens(messages) <= self.max_tokens * share


@dataclass
class Plan:
    """The messages to send, and the summary they need when it is not stored yet."""

    system: str | None
    summary: str | None  # the text sent in place of the older turns
    history: list[Message]
    question: Message
    to_summarize: list[Message] = field(default_factory=list)  # older messages the summary must still take in
    through: str | None = None  # the last turn the summary covers

    @property
    def needs_summary(self) -> bool:
        return bool(self.to_summarize)

    def messages(self) -> list[Message]:
        head = "\n\n".join(p for p in (self.system, self.summary and f"{SUMMARY_HEADING}\n{self.summary}") if p)
        return ([Message("system", head)] if head else []) + self.history + [self.question]


def transcript_messages(turns: list[Turn]) -> tuple[str | None, list[Message]]:
    """The latest system prompt, and the user and assistant messages in order."""
    return _system(turns), [Message(t.role, t.content) for t in _spoken(turns)]


def _system(turns: list[Turn]) -> str | None:
    return next((t.content for t in reversed(turns) if t.role == "system"), None)


def _spoken(turns: list[Turn]) -> list[Turn]:
    """User and assistant turns, without empty ones (an answer that failed before any text)."""
    return [t for t in turns if t.role in ("user", "assistant") and t.content.strip()]


def tokens(messages: list[Message]) -> int:
    return sum(len(m.content) for m in messages) // CHARS_PER_TOKEN


def plan(conv: Conversation, question: Turn, budget: Budget) -> Plan:
    """The whole conversation while it fits; then a summary and the latest turns."""
    earlier = [t for t in conv.turns if t.name != question.name]
    system, said = _system(earlier), _spoken(earlier)
    history = [Message(t.role, t.content) for t in said]
    ask = Message("user", question.content)
    if budget.fits(history):
        return Plan(system, None, history, ask)
    stored = conv.context_summary or {}
    names = [t.name for t in said]
    covered = names.index(stored["through"]) + 1 if stored.get("through") in names else 0
    if covered and budget.fits(history[covered:]):
        return Plan(system, str(stored.get("text") or ""), history[covered:], ask, through=names[covered - 1])
    cut = len(history) - _latest_within(history, budget)
    summary = str(stored.get("text") or "") if covered and covered <= cut else None
    start = covered if summary is not None else 0
    return Plan(system, summary, history[cut:], ask, to_summarize=history[start:cut], through=names[cut - 1])


def _latest_within(history: list[Message], budget: Budget) -> int:
    """How many of the latest messages fit half the budget, never starting
    with an answer whose question went into the summary."""
    keep = 0
    while keep < len(history) and budget.fits(history[len(history) - keep - 1 :], share=0.5):
        keep += 1
    if keep and history[len(history) - keep].role == "assistant":
        keep -= 1
    return keep
