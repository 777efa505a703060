"""Asking: pick the conversation, store the question, call the model, store
the answer.

The question is committed before the model is called, so an error, Ctrl-C or
a crash never loses it; the answer is committed after, whole, or as far as it
came with ``finish: interrupted`` or ``finish: error``.
"""

import signal
from contextlib import contextmanager
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import ids, refs
from ..context import build_messages
from ..errors import Interrupted, ProviderError, UsageError
from ..format import Conversation, Turn, now_iso
from ..store import Written
from ..providers import Message, Provider, get_provider
from ..providers.choice import choose
from .current import current
from .workspace import Workspace

TITLE_LENGTH = 60


@dataclass
class AskOptions:
    words: list[str]
    stdin_text: str | None = None
    follow: bool = False  # -c: continue; the first word may name the conversation
    cid: str | None = None  # --cid: continue exactly this one
    new: bool = False
    model: str | None = None
    system: str | None = None
    stream: bool = True
    save: bool = True
    last_command: tuple[str, str] | None = None  # (command line, exit status), shared by opt-in


@dataclass
class AskResult:
    conversation: str
    short: str
    question: str | None
    answer: str | None
    text: str
    model: str
    provider: str
    usage: dict = field(default_factory=dict)
    finish: str = "stop"

    def to_dict(self) -> dict:
        return {
            "conversation": self.conversation, "question_turn": self.question, "answer_turn": self.answer,
            "answer": self.text, "model": self.model, "provider": self.provider, "usage": self.usage,
            "finish": self.finish,
        }


@dataclass
class Answering:
    """What one model call is for: the options, who answers, what it replaces."""

    opts: AskOptions
    provider: Provider
    provider_name: str
    model: str
    replaces: str | None = None  # the answer a retry supersedes
    hint: str | None = None  # why the old answer was wrong


@dataclass
class Asker:
    ws: Workspace
    notice: Callable[[str], None]
    on_text: Callable[[str], None]

    def ask(self, opts: AskOptions) -> AskResult:
        _prompt(opts.words, opts.stdin_text)  # refuse an empty question before anything else
        conv_id, words = self._target(opts)
        prompt = _prompt(words, opts.stdin_text)
        if opts.last_command:
            command, status = opts.last_command
            prompt += f"\n\n(My last shell command was `{command}`; it exited with status {status}.)"
        choice = choose(self.ws.config, opts.model)
        provider_name, model = choice.provider, choice.model
        provider = get_provider(provider_name, self.ws.config)
        conv, question = self._store_question(conv_id, prompt, opts, provider_name, model)
        messages = build_messages(
            conv.turns, question, self.ws.config.get("context.max_messages"), self.ws.config.get("context.max_tokens")
        )
        return self._answer(conv, question, messages, Answering(opts, provider, provider_name, model))

    def retry(self, ref: str | None, hint: str | None, wrong: bool, opts: AskOptions) -> AskResult:
        """Answer the conversation's last question again. The new answer replaces
        the old one in the tree (the old one stays in history, see conv diff);
        with a hint, or --wrong, the model is shown its old answer and told it was wrong."""
        conv = self.ws.conversation(self.ws.resolve(ref))
        question = next((t for t in reversed(conv.turns) if t.role == "user"), None)
        if question is None:
            raise UsageError(f"{conv.id} has no question to answer again", f'Ask one: conv ask --cid {conv.id} "…"')
        old = next((t for t in conv.turns if t.role == "assistant" and t.parent == question.name), None)
        spec = opts.model or (f"{old.provider}:{old.model}" if old and old.provider and old.model else None)
        choice = choose(self.ws.config, spec)
        provider_name, model = choice.provider, choice.model
        provider = get_provider(provider_name, self.ws.config)
        before = conv.turns[: conv.turns.index(question) + 1]
        messages = build_messages(
            before, question, self.ws.config.get("context.max_messages"), self.ws.config.get("context.max_tokens")
        )
        if old is not None and (hint or wrong):
            said = (hint or "").strip()
            because = f": {said}" + ("" if said[-1:] in ".!?" else ".") if said else "."
            messages += [Message("assistant", old.content), Message("user", f"That answer was wrong{because} Please answer again.")]
        job = Answering(opts, provider, provider_name, model, replaces=old.name if old else None, hint=hint)
        return self._answer(conv, question, messages, job)

    def _answer(self, conv: Conversation, question: Turn, messages: list[Message], job: "Answering") -> AskResult:
        """Stream the model's answer and store it, whole or as far as it came."""
        pieces: list[str] = []

        def receive(text: str) -> None:
            pieces.append(text)
            self.on_text(text)

        opts = job.opts
        result = AskResult(conv.id, self._short(conv.id, opts), question.name if opts.save else None,
                           None, "", job.model, job.provider_name)
        try:
            with _terminal_loss_interrupts():
                reply = job.provider.complete(messages, job.model, receive, stream=opts.stream)
        except (KeyboardInterrupt, Interrupted) as exc:
            with _ignoring_interrupts():
                self._store_answer(conv, question, result, pieces, "interrupted", job)
            raise exc if isinstance(exc, Interrupted) else Interrupted(signal.SIGINT) from None
        except ProviderError as exc:
            with _ignoring_interrupts():
                self._store_answer(conv, question, result, pieces, "error", job, error=exc.message)
            raise
        result.model, result.usage = reply.model or job.model, reply.usage
        self._store_answer(conv, question, result, pieces, reply.finish, job)
        return result

    # -- which conversation ------------------------------------------------
    def _target(self, opts: AskOptions) -> tuple[str | None, list[str]]:
        words = list(opts.words)
        if opts.cid:
            return refs.resolve(self.ws.index, opts.cid), words
        if opts.new or not opts.follow:
            return None, words
        # a lone word is the question; a ref needs a question after it (or piped in)
        if words and ids.looks_like_ref(words[0]) and (len(words) > 1 or opts.stdin_text):
            found = refs.candidates(self.ws.index, words[0])
            if len(found) == 1:
                return found[0], words[1:]
        return self._current(), words

    def _current(self) -> str | None:
        now = current(self.ws)
        if now.why == "session-expired":
            self.notice(
                f"{now.short} has been idle for {_span(now.idle)}; starting a new conversation "
                f"(continue the old one with: conv ask --cid {now.short} …)"
            )
            return None
        if now.conv_id is None:
            self.notice("no conversation to continue; starting a new one")
        return now.conv_id

    # -- storing -------------------------------------------------------------
    def _store_question(self, conv_id, prompt, opts, provider_name, model) -> tuple[Conversation, Turn]:
        new_conv = None
        if conv_id is None:
            new_conv = Conversation(
                id=ids.new_conversation_id(), created=now_iso(), title=_title(opts.words, prompt),
                model=model, provider=provider_name,
            )
            conv_id = new_conv.id
        system = opts.system
        if system is not None and new_conv is None and self._last_system(conv_id) == system:
            system = None  # unchanged: only a new system prompt becomes a turn
        made: list[Turn] = []

        def make_turns(parent: str | None) -> list[Turn]:
            made.clear()
            if system is not None:
                turn = Turn(ids.new_turn_name("system"), "system", system, now_iso(), parent)
                made.append(turn)
                parent = turn.name
            made.append(Turn(ids.new_turn_name("user"), "user", prompt, now_iso(), parent))
            return made

        if not opts.save:
            conv = new_conv or self.ws.conversation(conv_id)
            conv.turns += make_turns(conv.turns[-1].name if conv.turns else None)
            return conv, made[-1]
        written = self.ws.store.add_turns(conv_id, make_turns, f"{conv_id}: ask", new_conv)
        conv = self.ws.conversation(conv_id, written.new)
        self._after_commit(conv, written)
        return conv, made[-1]

    def _last_system(self, conv_id: str) -> str | None:
        turns = self.ws.conversation(conv_id).turns
        return next((t.content for t in reversed(turns) if t.role == "system"), None)

    def _store_answer(self, conv, question, result, pieces, finish, job: "Answering", error=None) -> None:
        text = "".join(pieces)
        result.text, result.finish = text, finish
        if not job.opts.save:
            return
        answer = Turn(
            ids.new_turn_name("assistant"), "assistant", text, now_iso(), question.name,
            model=result.model, provider=result.provider, usage=result.usage or None, finish=finish, error=error,
            replaces=job.replaces, hint=job.hint,
        )
        tokens = result.usage.get("completion_tokens")
        detail = f"{result.model}, {tokens} token{'s' * (tokens != 1)}" if tokens is not None else result.model
        verb = {"interrupted": "answer interrupted", "error": "answer failed"}.get(finish, "answer")
        if job.replaces is not None and finish in ("interrupted", "error"):
            # a retry that did not finish never pushes out the answer it was to replace
            if not text:
                return
            answer.replaces = None
            job = Answering(job.opts, job.provider, job.provider_name, job.model)
        if job.replaces is None:
            written = self.ws.store.add_turns(conv.id, lambda parent: [answer], f"{conv.id}: {verb} ({detail})")
        else:
            def swap(draft) -> str:
                draft.remove(job.replaces)
                draft.put(answer)
                return f"{conv.id}: retry, {verb} ({detail})"

            written = self.ws.store.change(conv.id, swap)
        result.answer = answer.name
        self._after_commit(conv, written)

    def _after_commit(self, conv: Conversation, written: Written) -> None:
        """Keep the index and this terminal's session file in step with the commit."""
        self.ws.index.record(conv, written.old, written.new)
        self.ws.make_current(conv.id, len(written.names))

    def _short(self, conv_id: str, opts: AskOptions) -> str:
        return self.ws.index.short_id(conv_id) if opts.save else conv_id


def _prompt(words: list[str], stdin_text: str | None) -> str:
    text = " ".join(words)
    if stdin_text:
        text = f"{text}\n\n{stdin_text}" if text.strip() else stdin_text
    if not text.strip():
        raise UsageError("nothing to ask", 'Give a question, e.g. conv ask "explain git rebase", or pipe text in')
    return text


def _title(words: list[str], prompt: str) -> str:
    """The first line of what was typed (or piped), cut at a word near 60 characters."""
    line = next((l.strip() for l in (" ".join(words) or prompt).splitlines() if l.strip()), "")
    if len(line) <= TITLE_LENGTH:
        return line
    cut = line[:TITLE_LENGTH].rsplit(" ", 1)[0]
    return (cut if len(cut) > TITLE_LENGTH // 2 else line[:TITLE_LENGTH]) + "…"


def _span(seconds: float) -> str:
    hours = int(seconds // 3600)
    return f"{hours // 24}d {hours % 24}h" if hours >= 24 else f"{hours}h {int(seconds % 3600 // 60)}m"


@contextmanager
def _terminal_loss_interrupts():
    """While the answer streams, SIGTERM and SIGHUP end it as Ctrl-C does:
    the part received is stored before conv exits."""

    def interrupt(signum, frame):
        raise Interrupted(signum)

    old = {s: signal.signal(s, interrupt) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


@contextmanager
def _ignoring_interrupts():
    """A second Ctrl-C while the partial answer is being saved must not lose it."""
    old = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
