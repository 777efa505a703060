"""Streaming the model's answer and storing it, whole, or as far as it came
with ``finish: interrupted`` or ``finish: error``. A retry's answer takes
the place of the one it replaces (which stays in history), or, when the
conversation moved on while it arrived, goes to a fork (``place_retry``)."""

import signal

from ...errors import Interrupted, ProviderError, RefError
from ...format import ids
from ...format.model import Conversation, Turn, now_iso
from ...format.sound import sound
from ...home.secrets import redact
from ...providers import Message, Provider
from ...records import dataclass, field, replace
from ...signals import ignoring_interrupts, terminal_loss_interrupts
from ...store import Written
from ..fork import child_of
from ..workspace import Workspace
from . import pricing
from .finish import committed
from .options import AskOptions, AskResult, Output


@dataclass
class Job:
    """What one model call is for: the options, who answers, what it replaces."""

    opts: AskOptions
    provider: Provider
    provider_name: str
    model: str
    replaces: str | None = None  # the answer a retry supersedes
    hint: str | None = None  # why the old answer was wrong
    feedback: str | None = None  # "negative": the user said the old answer was wrong
    options: dict = field(default_factory=dict)  # model options, those the provider takes (a retry's seed too)
    base: str | None = None  # for a retry: the commit it read the conversation at


def stream_answer(ws: Workspace, conv: Conversation, question: Turn, messages: list[Message], job: Job,
                  out: Output) -> AskResult:
    """Stream the model's answer to ``out`` and store it, whole or as far as it
    came. Room for it is reserved first, while the disk has some: should its
    commit fail for a full disk or a read-only store, it is kept there, and
    the next write of the store commits it."""
    if not job.opts.save:
        return _stream(ws, conv, question, messages, job, out)
    room = ws.store.kept_answers.reserve(conv.id, question.name)

    def on_text(text: str) -> None:
        room.expect(len(text.encode()))
        out.on_text(text)

    try:
        return _stream(ws, conv, question, messages, job, replace(out, on_text=on_text))
    finally:
        room.release()


def _stream(ws: Workspace, conv: Conversation, question: Turn, messages: list[Message], job: Job,
            out: Output) -> AskResult:
    pieces: list[str] = []

    def receive(text: str) -> None:
        text = sound(text)  # half a character a server's JSON spelled ("\ud83d") ended the ask
        pieces.append(text)
        out.on_text(text)

    opts = job.opts
    result = AskResult(conv.id, ws.index.queries.short_id(conv.id) if opts.save else conv.id,
                       question.name if opts.save else None, None, "", job.model, job.provider_name,
                       options=dict(job.options))
    try:
        with terminal_loss_interrupts():
            reply = job.provider.complete(messages, job.model, receive, stream=opts.stream, options=job.options)
    except (KeyboardInterrupt, Interrupted) as exc:
        with ignoring_interrupts():
            _store(ws, conv, question, result, pieces, "interrupted", job, out)
        raise exc if isinstance(exc, Interrupted) else Interrupted(signal.SIGINT) from None
    except ProviderError as exc:
        with ignoring_interrupts():
            _store(ws, conv, question, result, pieces, "error", job, out, error=exc.message)
        raise
    result.model, result.usage = reply.model or job.model, dict(reply.usage)
    spent = pricing.answer_cost(ws.config, job.provider_name, result.model, result.usage)
    if spent is not None and result.usage:
        result.usage["cost"] = spent
    _store(ws, conv, question, result, pieces, reply.finish, job, out)
    return result


def _store(ws: Workspace, conv: Conversation, question: Turn, result: AskResult, pieces: list[str], finish: str,
           job: Job, out: Output, error: str | None = None) -> None:
    text = "".join(pieces)
    result.text, result.finish = text, finish
    if not job.opts.save:
        return
    answer = Turn(
        ids.new_turn_name("assistant"), "assistant", text, now_iso(), question.name,
        model=result.model, provider=result.provider, usage=result.usage or None, finish=finish,
        error=error and redact(error), replaces=job.replaces, hint=job.hint and redact(job.hint),
        feedback=job.feedback if job.replaces else None, options=job.options or None,
    )
    tokens = result.usage.get("completion_tokens")
    detail = f"{result.model}, {tokens} token{'s' * (tokens != 1)}" if tokens is not None else result.model
    verb = {"interrupted": "answer interrupted", "error": "answer failed"}.get(finish, "answer")
    replaces = job.replaces
    if replaces is not None and finish in ("interrupted", "error"):
        # a retry that did not finish never pushes out the answer it was to replace
        if not text:
            return
        answer.replaces = replaces = None
    if job.base is None:
        written, placed = ws.store.add_turns(conv.id, lambda parent: [answer], f"{conv.id}: {verb} ({detail})"), conv
    else:
        written, placed = place_retry(ws, conv, question, answer, replaces, job.base, f"{verb} ({detail})")
    result.answer = answer.name
    committed(ws, placed, written)
    if placed.id != conv.id:
        result.conversation, result.forked_from = placed.id, conv.id
        was, result.short = result.short, ws.index.queries.short_id(placed.id)
        out.notice(f"{was} moved on while this answer arrived: it is kept in {result.short}, "
                   f"a fork of {was} up to the question (conv show {result.short})")


class _MovedOn(Exception):
    """The conversation is no longer as the retry found it."""


def place_retry(ws: Workspace, conv: Conversation, question: Turn, answer: Turn, replaces: str | None, base: str,
                what: str) -> tuple[Written, Conversation]:
    """Store a retry's answer, deciding under the writer lock where it goes: in
    place of the old one when the conversation is as the retry read it (at
    commit ``base``); if it moved on meanwhile (the old answer gone, a turn
    added after it, the conversation deleted), in a fork made of the turns up
    to the question as the retry saw them, and the answer: removing the old
    answer then would leave a later turn's parent dangling, and dropping the
    new one would lose what was paid for. Returns where it went."""
    seen = {t.name for t in conv.turns}

    def swap(draft) -> str:
        names = draft.turn_names
        if (replaces is not None and replaces not in names) or not seen.issuperset(names):
            raise _MovedOn
        if replaces is not None:
            draft.remove(replaces)
        draft.put(answer)
        return f"{conv.id}: retry, {what}" if replaces is not None else f"{conv.id}: {what}"

    try:
        return ws.store.change(conv.id, swap), conv
    except (_MovedOn, RefError):
        pass
    taken = conv.turns[: conv.turns.index(question) + 1]
    child = child_of(conv, question.name, base, f"{conv.title or conv.id} (retry)")
    message = f"{child.id}: fork of {conv.id} at turn {len(taken)} with a retry's {what}"
    written = ws.store.fork(conv.id, child, [t.name for t in taken], message, at=base, turns=[answer])
    child.turns = [*taken, answer]
    return written, child
