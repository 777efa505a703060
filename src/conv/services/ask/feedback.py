"""A plain ``conv ask`` that is really about the last answer (the per-shell
session seed's patterns P1 and P2): shortly after an answer in this
terminal, "the answer is wrong" asks that question again, telling the model
its answer was wrong, and "show me more" or "and in Python?" follows up.

Conservative by default (the seed's approach B): only within
``feedback.window`` of the last answer, only short lines, only phrasings
known to mean it (``feedback.negative`` and ``feedback.continue`` add
more). With ``feedback.classifier`` set to a model, that model decides
instead (approach A). Anything else is a new question, as always.
"""

import re

from ...errors import ProviderError
from ...format.model import seconds_since
from ...records import dataclass
from ..current import current
from ..workspace import Workspace
from .options import AskOptions

NEGATIVE = (
    "the answer is wrong", "the answer was wrong", "that answer is wrong", "that answer was wrong", "that's wrong",
    "that is wrong", "this is wrong", "wrong answer", "that's not right", "that is not right", "not right",
    "that's not what i meant", "that is not what i meant", "not what i meant", "not what i asked", "try again",
    "answer again", "that's incorrect", "that is incorrect",
    "答案不对", "不对", "错了", "不是我想要的", "再试一次",
)
CONTINUE = (
    "show me more", "tell me more", "more like that", "more examples", "more", "go on", "continue", "keep going",
    "another example", "and in ", "and with ", "and for ", "and what about", "what about ", "how about ",
    "same for ", "now in ", "now with ", "继续", "再来", "更多",
)
LEAD_INS = ("no", "nope", "hmm", "ok", "okay", "well", "sorry", "actually", "but", "so")
MOST_WORDS, MOST_CHARS = 10, 80  # longer than this, a line is a question of its own
CLASSIFIER = (
    "You sort a user's new message in a conversation with an assistant. Reply with one word: wrong if it says "
    "the assistant's last answer was wrong or not what was asked; continue if it follows up on that answer "
    "(more of it, a variation, a related question that needs it); new if it is an unrelated question."
)


@dataclass
class Reading:
    """What a plain ask was taken as: ``negative`` feedback on the last
    answer of ``conv_id``, or its ``continuation``."""

    kind: str
    conv_id: str
    hint: str | None = None  # negative feedback that says more than that the answer was wrong: all of it


def read(ws: Workspace, opts: AskOptions, notice) -> Reading | None:
    """How to take ``opts``' question: None for a new conversation, as asked."""
    if opts.follow or opts.cid or opts.new or opts.agent or opts.system or opts.stdin_text or not opts.save:
        return None
    window = ws.config.get("feedback.window")
    text = _normal(" ".join(opts.words))
    now = current(ws)
    if not window or not text or now.conv_id is None or now.why == "session-expired":
        return None
    conv = ws.conversation(now.conv_id)
    answers = [t for t in conv.turns if t.role == "assistant" and t.created]
    if not answers:
        return None
    age = seconds_since(answers[-1].created)
    if age is None or age > window:  # no readable time: no telling it is recent
        return None
    kind = _ask_the_model(ws, conv, text, notice) if ws.config.get("feedback.classifier") else None
    kind, phrase = (kind, None) if kind else _by_phrase(ws, text)
    if kind not in ("negative", "continuation"):
        return None
    said = " ".join(opts.words).strip()
    return Reading(kind, conv.id, said if kind == "negative" and phrase != _without_lead_in(text) else None)


def _by_phrase(ws: Workspace, text: str) -> tuple[str | None, str | None]:
    """Approach B: a short line in a known phrasing, and that phrase. A negative phrase may
    start a longer line ("that's wrong, I meant the CLI"); a continuation
    must be the whole line, unless it ends in a space ("and in Python?")."""
    if len(text) > MOST_CHARS or len(text.split()) > MOST_WORDS:
        return None, None
    bare = _without_lead_in(text)
    for phrase in NEGATIVE + tuple(ws.config.get("feedback.negative") or ()):
        phrase = _normal(phrase)
        if bare == phrase or bare.startswith((phrase + " ", phrase + ",")):
            return "negative", phrase
        if _within(phrase, bare):
            return "negative", bare  # a short line without spaces is taken as the phrase whole
    for phrase in CONTINUE + tuple(ws.config.get("feedback.continue") or ()):
        phrase = phrase.lower()
        if (bare.startswith(phrase) if phrase.endswith(" ") else bare == _normal(phrase)) or _within(phrase, bare):
            return "continuation", phrase
    return None, None


def _within(phrase: str, text: str) -> bool:
    """A phrase in a script written without spaces (CJK) counts anywhere in the line."""
    return not phrase.isascii() and phrase in text


def _ask_the_model(ws: Workspace, conv, text: str, notice) -> str | None:
    """Approach A: the configured model reads the last exchange and the new
    line and says wrong, continue or new (None when it cannot be asked)."""
    from ...providers import Message, get_provider
    from ...providers.choice import choose

    question = next((t.content for t in reversed(conv.turns) if t.role == "user"), "")
    answer = next((t.content for t in reversed(conv.turns) if t.role == "assistant"), "")
    shown = f"Last question: {question[:1000]}\n\nLast answer: {answer[:2000]}\n\nNew message: {text}"
    choice = choose(ws.config, ws.config.get("feedback.classifier"))
    pieces: list[str] = []
    try:
        get_provider(choice.provider, ws.config).complete(
            [Message("system", CLASSIFIER), Message("user", shown)], choice.model, pieces.append, stream=False, temperature=0)
    except ProviderError as exc:
        notice(f"feedback.classifier {choice.spec} could not be asked ({exc.message}); judging by phrasing")
        return None
    word = re.findall(r"[a-z]+", "".join(pieces).lower())[:1]
    return {"wrong": "negative", "continue": "continuation", "new": "new"}.get(word[0] if word else "")


def _normal(text: str) -> str:
    """Lower case, one space between words, curly quotes straight, end punctuation gone."""
    return " ".join(text.lower().replace("\u2019", "'").split()).strip(" .!?。！？")


def _without_lead_in(text: str) -> str:
    """``no, that's wrong`` -> ``that's wrong``."""
    words = text.split(" ", 1)
    if len(words) == 2 and words[0].strip(",.!") in LEAD_INS:
        return _without_lead_in(words[1].lstrip(",. "))
    return text
