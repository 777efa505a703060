"""Asking: pick the conversation, store the question, call the model, store
the answer.

The question is committed before the model is called, so an error, Ctrl-C or
a crash never loses it; the answer is committed after, whole, or as far as it
came with ``finish: interrupted`` or ``finish: error``.
"""

import signal
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ...errors import Interrupted, ProviderError, UsageError
from ...format import ids
from ...format.model import Conversation, Turn, now_iso
from ...providers import Message, Provider, get_provider
from ...providers.choice import Choice, choose
from ...store import Written
from ...terminal.signals import ignoring_interrupts, terminal_loss_interrupts
from .. import refs
from ..current import current
from ..workspace import Workspace
from . import agents, context, pricing
from .agents import Agent

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
    agent: str | None = None  # -a: start (or with -c continue) this agent's conversation


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
class Preview:
    """What ``conv ask --dry-run`` shows: who would answer, and exactly what they would be sent."""

    choice: Choice
    plan: context.Plan

    def to_dict(self) -> dict:
        return {
            "provider": self.choice.provider, "model": self.choice.model, "chosen_by": self.choice.source,
            "messages": [{"role": m.role, "content": m.content} for m in self.plan.messages()],
            "summary_needed": len(self.plan.to_summarize) if self.plan.needs_summary else 0,
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
    temperature: float | None = None


@dataclass
class Setup:
    """An ask worked out before anything is stored: where, what, by whom."""

    conv_id: str | None
    existing: Conversation | None  # the conversation followed up, as stored
    prompt: str
    agent: Agent | None
    choice: Choice
    system: str | None


@dataclass
class Asker:
    ws: Workspace
    notice: Callable[[str], None]
    on_text: Callable[[str], None]

    def ask(self, opts: AskOptions) -> AskResult:
        setup = self._setup(opts)
        provider = get_provider(setup.choice.provider, self.ws.config)
        conv, question = self._store_question(setup, opts)
        messages = self._context(conv, conv, question, setup.agent, provider, setup.choice, opts)
        job = Answering(opts, provider, setup.choice.provider, setup.choice.model,
                        temperature=setup.agent.temperature if setup.agent else None)
        return self._answer(conv, question, messages, job)

    def preview(self, opts: AskOptions) -> Preview:
        """The ask, stopped before anything is stored or any model is called."""
        opts = replace(opts, save=False)
        setup = self._setup(opts)
        conv, question = self._store_question(setup, opts)
        return Preview(setup.choice, context.plan(conv, question, self._budget(setup.agent)))

    def retry(self, ref: str | None, hint: str | None, wrong: bool, opts: AskOptions) -> AskResult:
        """Answer the conversation's last question again. The new answer replaces
        the old one in the tree (the old one stays in history, see conv diff);
        with a hint, or --wrong, the model is shown its old answer and told it was wrong."""
        conv = self.ws.conversation(self.ws.resolve(ref))
        question = next((t for t in reversed(conv.turns) if t.role == "user"), None)
        if question is None:
            raise UsageError(f"{conv.id} has no question to answer again", f'Ask one: conv ask --cid {conv.id} "…"')
        old = next((t for t in conv.turns if t.role == "assistant" and t.parent == question.name), None)
        agent = agents.find(self.ws.config, conv.agent)
        spec = opts.model or (f"{old.provider}:{old.model}" if old and old.provider and old.model else None)
        choice = choose(self.ws.config, spec, (agent.name, agent.model) if agent else None)
        provider = get_provider(choice.provider, self.ws.config)
        before = replace(conv, turns=conv.turns[: conv.turns.index(question) + 1])
        messages = self._context(conv, before, question, agent, provider, choice, opts)
        if old is not None and (hint or wrong):
            said = (hint or "").strip()
            because = f": {said}" + ("" if said[-1:] in ".!?" else ".") if said else "."
            messages += [Message("assistant", old.content), Message("user", f"That answer was wrong{because} Please answer again.")]
        job = Answering(opts, provider, choice.provider, choice.model, replaces=old.name if old else None, hint=hint,
                        temperature=agent.temperature if agent else None)
        return self._answer(conv, question, messages, job)

    def _setup(self, opts: AskOptions) -> Setup:
        _prompt(opts.words, opts.stdin_text)  # refuse an empty question before anything else
        conv_id, words = self._target(opts)
        prompt = _prompt(words, opts.stdin_text)
        if opts.last_command:
            command, status = opts.last_command
            prompt += f"\n\n(My last shell command was `{command}`; it exited with status {status}.)"
        agent = self._agent(opts, conv_id)
        existing = self.ws.conversation(conv_id) if conv_id else None
        choice = choose(self.ws.config, opts.model, (agent.name, agent.model) if agent else None, _last_model(existing))
        system = opts.system if opts.system is not None else (agent.system if agent else None)
        return Setup(conv_id, existing, prompt, agent, choice, system)

    def _agent(self, opts: AskOptions, conv_id: str | None) -> Agent | None:
        """A new conversation takes ``-a``'s agent; an existing one keeps its own."""
        if conv_id is None:
            return agents.load(self.ws.config, opts.agent) if opts.agent else None
        row = self.ws.index.queries.get(conv_id)
        own = row.agent if row else None
        if opts.agent and opts.agent != own:
            short = self.ws.index.queries.short_id(conv_id)
            self.notice(f"{short} belongs to agent {own}; it goes on with {own}'s settings" if own else
                        f"{short} was started without an agent; -a {opts.agent} applies to new conversations")
        return agents.find(self.ws.config, own)

    def _budget(self, agent: Agent | None) -> context.Budget:
        config = self.ws.config
        return context.Budget(
            (agent and agent.max_messages) or config.get("context.max_messages"),
            (agent and agent.max_tokens) or config.get("context.max_tokens"),
        )

    def _context(self, conv: Conversation, sent: Conversation, question: Turn, agent: Agent | None,
                 provider: Provider, choice: Choice, opts: AskOptions) -> list[Message]:
        """What the model is sent for ``question`` from the turns of ``sent``: the
        budget's plan, its summary made (and stored in ``conv``) when it is due;
        without one, if the model can't make it."""
        plan = context.plan(sent, question, self._budget(agent))
        if not plan.needs_summary:
            return plan.messages()
        from . import summary

        try:
            text = summary.summarize(provider, choice.model, plan)
        except ProviderError as exc:
            self.notice(f"could not summarize the older turns ({exc.message}); sending the latest ones only")
            return replace(plan, to_summarize=[]).messages()
        if opts.save:
            summary.store(self.ws, conv.id, plan.through, text, choice.spec)
        return replace(plan, summary=text, to_summarize=[]).messages()

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
            with terminal_loss_interrupts():
                reply = job.provider.complete(messages, job.model, receive, stream=opts.stream, temperature=job.temperature)
        except (KeyboardInterrupt, Interrupted) as exc:
            with ignoring_interrupts():
                self._store_answer(conv, question, result, pieces, "interrupted", job)
            raise exc if isinstance(exc, Interrupted) else Interrupted(signal.SIGINT) from None
        except ProviderError as exc:
            with ignoring_interrupts():
                self._store_answer(conv, question, result, pieces, "error", job, error=exc.message)
            raise
        result.model, result.usage = reply.model or job.model, dict(reply.usage)
        spent = pricing.cost(self.ws.config, job.provider_name, result.model, result.usage)
        if spent is not None and result.usage:
            result.usage["cost"] = spent
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
        if opts.agent:
            return self._agents_latest(opts.agent), words
        return self._current(), words

    def _agents_latest(self, name: str) -> str | None:
        """-a with -c: this terminal's conversation if it is the agent's, else the agent's latest."""
        from ...index.queries import Filters

        now = current(self.ws)
        row = self.ws.index.queries.get(now.conv_id) if now.conv_id and now.why != "session-expired" else None
        if row and row.agent == name:
            return row.id
        latest = self.ws.index.queries.recent(1, Filters(agent=name))
        if not latest:
            self.notice(f"agent {name} has no conversation yet; starting one")
        return latest[0].id if latest else None

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
    def _store_question(self, setup: Setup, opts: AskOptions) -> tuple[Conversation, Turn]:
        conv_id, agent, choice = setup.conv_id, setup.agent, setup.choice
        new_conv = None
        if conv_id is None:
            new_conv = Conversation(
                id=ids.new_conversation_id(agent.name if agent else None), created=now_iso(),
                title=_title(opts.words, setup.prompt), model=choice.model, provider=choice.provider,
                agent=agent.name if agent else None, system_hash=agent.prompt_hash if agent else None,
            )
            conv_id = new_conv.id
        existing = setup.existing
        system = setup.system
        if system is not None and existing and _last_system(existing) == system:
            system = None  # unchanged: only a new system prompt becomes a turn
        changed = self._prompt_changed(existing, agent)
        made: list[Turn] = []

        def make_turns(parent: str | None) -> list[Turn]:
            made.clear()
            if system is not None:
                turn = Turn(ids.new_turn_name("system"), "system", system, now_iso(), parent)
                made.append(turn)
                parent = turn.name
            made.append(Turn(ids.new_turn_name("user"), "user", setup.prompt, now_iso(), parent))
            return made

        if not opts.save:
            conv = new_conv or existing
            conv.turns += make_turns(conv.turns[-1].name if conv.turns else None)
            return conv, made[-1]
        if changed:
            def edit(draft) -> str:
                draft.conv.system_hash = agent.prompt_hash
                draft.save_meta()
                names = draft.turn_names
                for turn in make_turns(names[-1] if names else None):
                    draft.put(turn)
                return f"{conv_id}: ask (agent {agent.name}'s prompt changed)"

            written = self.ws.store.change(conv_id, edit)
        else:
            written = self.ws.store.add_turns(conv_id, make_turns, f"{conv_id}: ask", new_conv)
        conv = self.ws.conversation(conv_id, written.new)
        self._after_commit(conv, written)
        return conv, made[-1]

    def _prompt_changed(self, conv: Conversation | None, agent: Agent | None) -> bool:
        """Whether the agent's system prompt differs from the one the conversation
        last ran under (a warning, and the stored hash follows)."""
        if conv is None or agent is None or agent.prompt_hash is None or conv.system_hash == agent.prompt_hash:
            return False
        if conv.system_hash:
            self.notice(f"agent {agent.name}'s system prompt has changed since this conversation last used it; "
                        "the new one applies from here (the old one stays in its history)")
        return True

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
        return self.ws.index.queries.short_id(conv_id) if opts.save else conv_id


def _last_model(conv: Conversation | None) -> str | None:
    """``PROVIDER:MODEL`` of the conversation's last answer, which a follow-up goes on with."""
    last = next((t for t in reversed(conv.turns) if t.role == "assistant" and t.provider and t.model), None) if conv else None
    return f"{last.provider}:{last.model}" if last else None


def _last_system(conv: Conversation) -> str | None:
    return next((t.content for t in reversed(conv.turns) if t.role == "system"), None)


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
