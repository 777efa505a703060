"""The first step of every ask: what the line is, decided once, before
anything is planned or done. One of:

- a new question (``NEW``), or a follow-up of one conversation
  (``FOLLOW_UP``: -c, --cid, an agent's latest, this terminal's current one,
  or a plain line read as following up the last answer);
- feedback on the last answer (``FEEDBACK``: asked again, told it was wrong,
  or again because it did not finish);
- the answer a conversation's waiting question needs (``WAITING``: ``conv
  ask -c`` with no text after a fork made at a question);

and, before any of them, whether the line undoes what conv just took a
line as (``undo``: ``conv ask --new LINE`` repeating it). Which
conversation is meant is looked up here alone. Deciding stores nothing and
calls no model but the feedback classifier, when one is set up; the
pipeline then plans and acts on the decision, and --dry-run shows it."""

from ...errors import UsageError
from ...format import ids
from ...format.model import Conversation
from ...format.words import span
from ...records import dataclass
from .. import refs
from ..current import current
from ..workspace import Workspace
from . import feedback
from .options import AskOptions, Output

NEW, FOLLOW_UP, FEEDBACK, WAITING = "a new question", "a follow-up", "feedback", "the waiting question's answer"


@dataclass
class Decision:
    kind: str
    conv_id: str | None  # the conversation it goes to (None: a new one)
    words: list[str]  # the question's words (a conversation's id taken off the front)
    reading: feedback.Reading | None = None  # a plain line read as feedback or as following up the last answer
    undo: dict | None = None  # what conv took the same line as a moment ago, to be put back first

    def said_as(self, short) -> str | None:
        """What --dry-run says the line would be taken as (None: plainly what it says)."""
        undo = (f"putting {short(self.undo['conv'])} back as it was before that line, then "
                if self.undo else "")
        if self.kind == FEEDBACK:
            how = ", told it was wrong" if not self.reading.failed else " (it did not finish)"
            return f"{undo}feedback on the last answer of {self.conv_id}: asked again{how}"
        if self.kind == WAITING:
            return f"{undo}asking {short(self.conv_id)}'s waiting question, which has no answer yet"
        if self.reading is not None:
            return f"{undo}a follow-up to {self.conv_id}"
        return f"{undo}a new question" if undo else None


def decide(ws: Workspace, opts: AskOptions, out: Output) -> Decision:
    line = " ".join(opts.words).strip()
    undo = feedback.undoable(line) if opts.new and opts.save and line else None
    reading = feedback.read(ws, opts, out.notice)
    if reading is not None:
        kind = FEEDBACK if reading.kind == "negative" else FOLLOW_UP
        return Decision(kind, reading.conv_id, [] if kind == FEEDBACK else list(opts.words), reading, undo)
    question_given = bool(line or opts.stdin_text)
    if not question_given and (opts.new or not (opts.follow or opts.cid)):
        question(opts.words, opts.stdin_text)  # refused at once: no conversation is named whose question it answers
    conv_id, words = _conversation(ws, opts, out if question_given else Output(lambda _: None, out.on_text))
    if not question_given:
        if conv_id is not None and _waiting(ws.conversation(conv_id)):
            return Decision(WAITING, conv_id, [], None, undo)
        question(opts.words, opts.stdin_text)  # refused: nothing asked, nothing waiting
    return Decision(NEW if conv_id is None else FOLLOW_UP, conv_id, words, None, undo)


def question(words: list[str], stdin_text: str | None) -> str:
    """The question: the words typed, then any text piped in."""
    text = " ".join(words)
    if stdin_text:
        text = f"{text}\n\n{stdin_text}" if text.strip() else stdin_text
    if not text.strip():
        raise UsageError("nothing to ask", 'Give a question, e.g. conv ask "explain git rebase", or pipe text in')
    return text


def waiting_note(ws: Workspace, conv: Conversation, out: Output) -> None:
    """A follow-up to a conversation whose last question has no answer: said."""
    if _waiting(conv):
        short = ws.index.queries.short_id(conv.id)
        out.notice(f"{short}'s last question has no answer: it goes along, unanswered, before this one "
                   f"(conv ask --cid {short} with no text answers it first)")


def _waiting(conv: Conversation) -> bool:
    """Whether the conversation ends in a question with no answer."""
    spoken = [t for t in conv.turns if t.role in ("user", "assistant")]
    return bool(spoken) and spoken[-1].role == "user"


def _conversation(ws: Workspace, opts: AskOptions, out: Output) -> tuple[str | None, list[str]]:
    """The conversation to follow up (None: a new one), and the question's words."""
    words = list(opts.words)
    if opts.cid:
        return refs.resolve(ws, opts.cid), words
    if opts.new or not opts.follow:
        return None, words
    # a lone word is the question; a ref needs a question after it (or piped in)
    if words and ids.looks_like_ref(words[0]) and (len(words) > 1 or opts.stdin_text):
        found = refs.candidates(ws, words[0])
        if len(found) > 1:
            refs.resolve(ws, words[0])  # the error --cid gives, naming them
        if found:
            return found[0], words[1:]
        out.notice(f"{words[0]!r} names no conversation: it is sent as part of the question "
                   f"(to pick a conversation: conv ask --cid REF …)")
    if opts.agent:
        return _agents_latest(ws, opts.agent, out), words
    return _current(ws, out), words


def _agents_latest(ws: Workspace, name: str, out: Output) -> str | None:
    """-a with -c: this terminal's conversation if it is the agent's, else the agent's latest."""
    from ...index import Filters

    now = current(ws)
    row = ws.index.queries.get(now.conv_id) if now.conv_id and now.why != "session-expired" else None
    if row and row.agent == name:
        return row.id
    latest = ws.index.queries.recent(1, Filters(agent=name))
    if not latest:
        out.notice(f"agent {name} has no conversation yet; starting one")
    return latest[0].id if latest else None


def _current(ws: Workspace, out: Output) -> str | None:
    now = current(ws)
    if now.why == "session-expired":
        out.notice(
            f"{now.short} has been idle for {span(now.idle)}; starting a new conversation "
            f"(continue the old one with: conv ask --cid {now.short} …)"
        )
        return None
    if now.conv_id is None:
        out.notice("no conversation to continue; starting a new one")
    return now.conv_id
