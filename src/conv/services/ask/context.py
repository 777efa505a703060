"""What the model is sent: the whole conversation while it fits the budget
(``context.max_messages`` earlier messages, about ``context.max_tokens``
tokens of them; unset, what the model's window holds beside the question,
see providers/windows.py); beyond that, the system prompt, a stored summary
of the older turns and the latest ones.

The summary is made by the model (services/ask/summary.py) and kept in
conversation.md as ``context_summary: {through, text, model}``. When the
budget is exceeded the cut is made so that only half the budget is kept
verbatim: the next few follow-ups then fit beside the same summary, and the
model is asked to extend it only every few turns, not at every one. The
summary itself may take a quarter of the budget; older messages too long to
go whole into the request that makes it go cut in the middle, never left out.
"""

from collections.abc import Callable
from datetime import datetime, timedelta, timezone

from ...format.model import Conversation, Turn, seconds_since
from ...format.words import plural, span
from ...providers import Message
from ...records import dataclass, field

CHARS_PER_TOKEN = 4  # a rough count for ASCII text; no tokenizer is worth its import here
IMAGE_TOKENS = 1600  # what an image may cost (Anthropic's for about a megapixel; OpenAI's high detail is less)
SAFE_SHARE = 0.85  # of a model's window, what an estimate that rough may fill
NEARLY_FULL = 0.8  # of the budget: a follow-up this far in warns, once
SUMMARY_HEADING = "Summary of the earlier part of this conversation:"
SUMMARY_SHARE = 0.25  # of the budget, what the summary may take (the latest turns take half)
CUT = "\n[… {} characters cut here to fit …]\n"


@dataclass
class Budget:
    max_messages: int | None = None
    max_tokens: int | None = None
    room: int | None = None  # tokens a whole request may hold (the model's window), when max_tokens is unset
    limit: str = ""  # which limit this is, for what conv says when it cuts (context.max_tokens 1000, …)

    def fits(self, messages: list[Message], share: float = 1.0) -> bool:
        return self.allows(len(messages), tokens(messages), share)

    def allows(self, count: int, size: int, share: float = 1.0) -> bool:
        """Whether ``count`` messages of about ``size`` tokens fit ``share`` of the budget."""
        if self.max_messages is not None and count > self.max_messages * share:
            return False
        return self.max_tokens is None or size <= self.max_tokens * share

    def beside(self, fixed: list[Message]) -> "Budget":
        """The budget for earlier messages in a request that also holds ``fixed``
        (the system prompt, the question): the model's room less theirs."""
        if self.max_tokens is not None or self.room is None:
            return self
        return Budget(self.max_messages, max(int(self.room * SAFE_SHARE) - tokens(fixed), 1), self.room, self.limit)

    def summary_tokens(self) -> int | None:
        """The most a summary may take (None: no token budget, any size)."""
        return int(self.max_tokens * SUMMARY_SHARE) if self.max_tokens is not None else None


@dataclass
class Plan:
    """The messages to send, and the summary they need when it is not stored yet."""

    system: str | None
    summary: str | None  # the text sent in place of the older turns
    history: list[Message]
    question: Message
    to_summarize: list[Message] = field(default_factory=list)  # older messages the summary must still take in
    through: str | None = None  # the last turn the summary covers
    nearly_full: bool = False  # this follow-up took the conversation near the budget
    clipped: int = 0  # older messages cut in the middle to fit the summary's own request
    note: str | None = None  # the resume note, when the conversation is taken up after a break

    @property
    def needs_summary(self) -> bool:
        return bool(self.to_summarize)

    def messages(self) -> list[Message]:
        head = "\n\n".join(p for p in (self.system, self.note, self.summary and f"{SUMMARY_HEADING}\n{self.summary}")
                           if p)
        return ([Message("system", head)] if head else []) + self.history + [self.question]


def transcript_messages(turns: list[Turn],
                        say: Callable[[Turn], Message] | None = None) -> tuple[str | None, list[Message]]:
    """The latest system prompt, and the user and assistant messages in order."""
    return _system(turns), [(say or plain)(t) for t in _spoken(turns)]


def _system(turns: list[Turn]) -> str | None:
    return next((t.content for t in reversed(turns) if t.role == "system"), None)


def _spoken(turns: list[Turn]) -> list[Turn]:
    """User and assistant turns, without empty ones (an answer that failed before any text)."""
    return [t for t in turns if t.role in ("user", "assistant") and (t.content.strip() or t.files)]


def tokens(messages: list[Message]) -> int:
    """About how many tokens: a quarter of the characters, and more for the
    rest of Unicode (a CJK character is a token or two, not a quarter)."""
    return sum(len(m.content) // CHARS_PER_TOKEN + (len(m.content.encode()) - len(m.content)) // 2
               + IMAGE_TOKENS * len(m.images) for m in messages)


def plain(turn: Turn) -> Message:
    return Message(turn.role, turn.content)


def plan(conv: Conversation, question: Turn, budget: Budget, say: Callable[[Turn], Message] = plain) -> Plan:
    """The whole conversation while it fits; then a summary and the latest
    turns. ``say`` makes a turn a message (with the files sent with it)."""
    earlier = [t for t in conv.turns if t.name != question.name]
    system, said = _system(earlier), _spoken(earlier)
    history = [say(t) for t in said]
    ask = say(question)
    budget = budget.beside([ask] + ([Message("system", system)] if system else []))
    if budget.fits(history):
        nearly = not budget.fits(history, NEARLY_FULL) and budget.fits(history[:-2], NEARLY_FULL)
        return Plan(system, None, history, ask, nearly_full=nearly)
    stored = conv.context_summary or {}
    names = [t.name for t in said]
    covered = names.index(stored["through"]) + 1 if stored.get("through") in names else 0
    recent, kept = history[covered:], [Message("system", str(stored.get("text") or ""))]
    if covered and budget.allows(len(recent), tokens(recent + kept)):
        return Plan(system, str(stored.get("text") or ""), history[covered:], ask, through=names[covered - 1])
    cut = len(history) - _latest_within(history, budget)
    summary = str(stored.get("text") or "") if covered and covered <= cut else None
    start = covered if summary is not None else 0
    older = history[start:cut]
    room = budget.max_tokens - tokens([Message("system", summary or "")]) if budget.max_tokens is not None else None
    clipped = clip(older, room) if room is not None else older
    return Plan(system, summary, history[cut:], ask, to_summarize=clipped, through=names[cut - 1],
                clipped=sum(a is not b for a, b in zip(older, clipped)))


def clip(messages: list[Message], most: int) -> list[Message]:
    """``messages`` within about ``most`` tokens: each of those too long for an
    even share keeps its start and its end, cut in the middle (never dropped:
    what goes into a summary must all be there in some form)."""
    if tokens(messages) <= most:
        return messages
    small = [m for m in messages if tokens([m]) * len(messages) <= most]
    share = max((most - tokens(small)) // max(len(messages) - len(small), 1), 16)
    return [m if m in small else _cut(m, share) for m in messages]


def _cut(message: Message, share: int) -> Message:
    text = message.content
    keep = max(share * len(text) // max(tokens([message]), 1), 64)  # characters for ``share`` tokens of this text
    if keep >= len(text):
        return message
    head, tail = text[: keep * 2 // 3], text[len(text) - keep // 3:]
    return Message(message.role, head + CUT.format(len(text) - len(head) - len(tail)) + tail)


def question_too_big(question: str, system: str | None, budget: Budget) -> int | None:
    """The question's size in tokens when it cannot fit the model's window at all
    (with its system prompt, and room for the answer), else None."""
    if budget.room is None:
        return None
    size = tokens([Message("user", question), Message("system", system or "")])
    return size if size > budget.room * SAFE_SHARE else None


def _latest_within(history: list[Message], budget: Budget, share: float = 0.5) -> int:
    """How many of the latest messages fit ``share`` of the budget, never
    starting with an answer whose question went elsewhere (into the summary)."""
    keep = size = 0
    for message in reversed(history):
        size += tokens([message])
        if not budget.allows(keep + 1, size, share):
            break
        keep += 1
    if keep and history[len(history) - keep].role == "assistant":
        keep -= 1
    return keep


def resume_note(conv: Conversation, question: Turn, after: float) -> str | None:
    """A few lines telling the model that ``conv`` is taken up again after a
    break longer than ``after`` seconds (0: never): when it was last active,
    how far it had got, its title and summary. None for a follow-up that
    comes soon after the last turn, and for a new conversation."""
    earlier = [t for t in conv.turns if t.name != question.name and t.created]
    gap = seconds_since(earlier[-1].created) if after and earlier else None
    if gap is None or gap <= after:
        return None
    exchanges = sum(t.role == "user" for t in earlier)
    lines = [f"This conversation is being taken up again after a break of {span(gap)}: it was last active on "
             f"{datetime.now(timezone.utc) - timedelta(seconds=gap):%Y-%m-%d %H:%M} UTC, "
             f"after {plural(exchanges, 'exchange')}."]
    lines += [f"Its title: {conv.title}"] if conv.title else []
    lines += [f"Its summary: {conv.summary}"] if conv.summary else []
    return "\n".join(lines)

