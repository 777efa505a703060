"""A plain ``conv ask`` that is really about the last answer (the per-shell
session seed's patterns P1 and P2): shortly after an answer in this
terminal, "the answer is wrong" asks that question again, telling the model
its answer was wrong, and "show me more" or "and in Python?" follows up.

Conservative by default (the seed's approach B): only within
``feedback.window`` of the last answer, only short lines, and only when the
whole line is a phrasing known to mean it (``feedback.negative`` and
``feedback.continue`` add more), in Chinese as in English: "try again with
exponential backoff" and "为什么结果不对?" are questions. A negative phrase
may be followed by a hint of what was meant ("that's wrong, I meant the
CLI"): after a comma or a dash, a correction, not a question. With
``feedback.classifier`` set to a model, that model decides instead
(approach A). Anything else is a new question, as always.
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
QUESTION_WORDS = ("?", "？", "吗", "为什么", "怎么", "如何", "什么", "哪", "是否", "能否", "可以")
SEPARATORS = (", ", ",", " - ", " — ", " – ", ": ", "; ", ". ", "，", "：", "；", "。")
CORRECTIONS = (  # how a hint after a negative phrase starts: it says what was meant
    "i meant", "i mean", "i asked", "i wanted", "i said", "i need", "i was asking", "what i", "it's", "it is",
    "it should", "it was", "should be", "use ", "not ", "the question", "you ", "please", "that's", "that is",
    "我是说", "我的意思是", "我问的是", "我要的是", "我说的是", "应该", "不是", "请", "要",
)
MOST_WORDS, MOST_CHARS = 16, 100  # longer than this, a line is a question of its own
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
    said: str  # the line as typed: stored with the new answer
    hinted: bool = False  # it says more than that the answer was wrong ("…, I meant the CLI"): the model is told
    failed: bool = False  # the last answer did not finish: asked again, not told it was wrong


def read(ws: Workspace, opts: AskOptions, notice) -> Reading | None:
    """How to take ``opts``' question: None for a new conversation, as asked.
    The words are judged first: a line that is no feedback never reads the
    current conversation (which may be gone)."""
    if opts.follow or opts.cid or opts.new or opts.agent or opts.system or opts.stdin_text or not opts.save:
        return None
    window = ws.config.get("feedback.window")
    text = _normal(" ".join(opts.words))
    classifier = ws.config.get("feedback.classifier")
    kind, phrase = (None, None) if classifier else by_phrase(text, ws.config.get("feedback.negative"),
                                                              ws.config.get("feedback.continue"))
    if not window or not text or (not classifier and kind is None):
        return None
    conv = _recent(ws, window)
    if conv is None:
        return None
    if classifier:
        kind = _ask_the_model(ws, conv, text, notice)
        kind, phrase = (kind, None) if kind else by_phrase(text, ws.config.get("feedback.negative"),
                                                           ws.config.get("feedback.continue"))
    if kind not in ("negative", "continuation"):
        return None
    last = [t for t in conv.turns if t.role == "assistant"][-1]
    return Reading(kind, conv.id, " ".join(opts.words).strip(),
                   hinted=phrase is None or _corrects(_without_lead_in(text), phrase),
                   failed=last.finish in ("error", "interrupted"))


def _recent(ws: Workspace, window: float):
    """This terminal's conversation when its last answer is within ``window``
    seconds and was kept (an unsaved ask since leaves nothing to judge); None
    when there is none, or it is gone or unreadable."""
    from ...errors import ConvError
    from ...home import session

    now = current(ws)
    if now.conv_id is None or now.why == "session-expired":
        return None
    try:
        conv = ws.conversation(now.conv_id)
    except ConvError:  # deleted, or damaged: the line is a question of its own
        return None
    answers = [t for t in conv.turns if t.role == "assistant" and t.created]
    age = seconds_since(answers[-1].created) if answers else None
    if age is None or age > window:  # no readable time: no telling it is recent
        return None
    unsaved = session.unsaved_since(session.session_name() or session.DEFAULT)
    if unsaved is not None and unsaved <= age:  # a --no-save ask came after it: that is what "try again" means
        return None
    return conv


def by_phrase(text: str, negative=(), continuing=()) -> tuple[str | None, str | None]:
    """Approach B: ("negative" or "continuation", the phrase) when the whole
    line, lower-cased without its end punctuation, is such a phrase (after a
    lead-in such as "no,"); a negative one may go on with a correction after
    a comma or a dash; a continuation ending in a space ("and in ") starts a
    follow-up question. (None, None) for anything else."""
    if len(text) > MOST_CHARS or len(text.split()) > MOST_WORDS:
        return None, None
    bare = _without_lead_in(text)
    for phrase in map(_normal, NEGATIVE + tuple(negative or ())):
        if bare == phrase or _corrects(bare, phrase) or _ends_a_statement(bare, phrase):
            return "negative", phrase
    for phrase in CONTINUE + tuple(continuing or ()):
        phrase = phrase.lower()
        if bare.startswith(phrase) if phrase.endswith(" ") and phrase.isascii() else bare == _normal(phrase):
            return "continuation", phrase
    return None, None


def _ends_a_statement(text: str, phrase: str) -> bool:
    """In Chinese, a few characters naming what was wrong may come first: "给我的答案不对",
    "结果不对"; not a question ("为什么结果不对?") nor a word that merely holds
    the phrase ("不对称加密")."""
    return (not phrase.isascii() and text.endswith(phrase) and len(text) <= len(phrase) + 6
            and not any(word in text for word in QUESTION_WORDS))


def _corrects(text: str, phrase: str) -> bool:
    """``phrase``, a separator, then a correction (not a question): "that's
    wrong, I meant the CLI", "不对，我是说 Python 3"."""
    if not text.startswith(phrase):
        return False
    rest = text[len(phrase):]
    separator = next((s for s in SEPARATORS if rest.startswith(s)), None)
    if separator is None:
        return False
    hint = rest[len(separator):].strip()
    return bool(hint) and "?" not in hint and "？" not in hint and hint.startswith(CORRECTIONS)


def _ask_the_model(ws: Workspace, conv, text: str, notice) -> str | None:
    """Approach A: the configured model reads the last exchange and the new
    line and says wrong, continue or new (None when it cannot be asked)."""
    from ...providers import Message, get_provider
    from ...providers.choice import choose
    from ...providers.options import taken

    question = next((t.content for t in reversed(conv.turns) if t.role == "user"), "")
    answer = next((t.content for t in reversed(conv.turns) if t.role == "assistant"), "")
    shown = f"Last question: {question[:1000]}\n\nLast answer: {answer[:2000]}\n\nNew message: {text}"
    choice = choose(ws.config, ws.config.get("feedback.classifier"))
    pieces: list[str] = []
    try:
        provider = get_provider(choice.provider, ws.config)
        provider.complete([Message("system", CLASSIFIER), Message("user", shown)], choice.model, pieces.append,
                          stream=False, options=taken({"temperature": 0}, provider))
    except ProviderError as exc:
        notice(f"feedback.classifier {choice.spec} could not be asked ({exc.message}); judging by phrasing")
        return None
    word = re.findall(r"[a-z]+", "".join(pieces).lower())[:1]
    return {"wrong": "negative", "continue": "continuation", "new": "new"}.get(word[0] if word else "")


UNDO_WITHIN = 3600.0  # seconds: the undo conv prints works this long after


def remember(ws: Workspace, reading: Reading, result, base: str) -> None:
    """Note what a line taken as feedback did, for its undo (``conv ask --new LINE``)."""
    from ...home import session

    if result.forked_from is None and result.answer:
        session.note_reading(session.session_name() or session.DEFAULT, {
            "kind": reading.kind, "conv": result.conversation, "said": reading.said, "base": base,
            "question": result.question, "answer": result.answer})


def undoable(said: str) -> dict | None:
    """When ``conv ask --new`` repeats the line conv just took as feedback (or
    as a follow-up): what it did then, to be put back (None: nothing to undo)."""
    from ...home import session

    reading = session.last_reading(session.session_name() or session.DEFAULT, UNDO_WITHIN)
    return reading if reading is not None and reading.get("said") == said else None


def undo(ws: Workspace, reading: dict) -> str | None:
    """Put the conversation back as it was before the line ``reading`` notes
    was taken as feedback (the earlier answer current again, the mark gone; or
    the follow-up taken out): its short id, or None when it moved on since.
    Everything stays in the conversation's history."""
    from ...errors import ConvError

    conv_id, answer, said = reading["conv"], reading["answer"], reading["said"]

    def edit(draft) -> str:
        names = draft.turn_names
        if not names or names[-1] != answer:
            raise ConvError(f"{conv_id} moved on since", "")
        if reading["kind"] == "negative":
            replaced = draft.turn(answer).replaces
            draft.remove(answer)
            if replaced:
                draft.put(next(t for t in ws.conversation(conv_id, reading["base"]).turns if t.name == replaced))
            return f"{conv_id}: the answer before the feedback is back (not feedback: {said[:60]})"
        draft.remove(answer)
        draft.remove(reading["question"])
        return f"{conv_id}: the follow-up taken back (a question of its own: {said[:60]})"

    try:
        written = ws.store.change(conv_id, edit)
    except ConvError:
        return None
    from .finish import committed

    committed(ws, ws.conversation(conv_id, written.new), written)
    return ws.index.queries.short_id(conv_id)


def _normal(text: str) -> str:
    """Lower case, one space between words, curly quotes straight, end punctuation gone."""
    return " ".join(text.lower().replace("\u2019", "'").split()).strip(" .!?。！？")


def _without_lead_in(text: str) -> str:
    """``no, that's wrong`` -> ``that's wrong``."""
    words = text.split(" ", 1)
    if len(words) == 2 and words[0].strip(",.!") in LEAD_INS:
        return _without_lead_in(words[1].lstrip(",. "))
    return text
