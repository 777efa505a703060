"""Asking, as a short pipeline of named steps that conv ask, conv retry and
conv chat share:

  choose the target (target.py) → store the question (question.py)
  → plan the context, with its summary when due (summary.py)
  → stream and store the answer (answer.py) → finish (finish.py)

The question is committed before the model is called, so an error, Ctrl-C or
a crash never loses it; the answer is committed after, whole, or as far as it
came.
"""

import os

from ...errors import UsageError
from ...providers import Message, get_provider
from ...providers.choice import Choice, choose, going_on_with
from ...records import dataclass, replace
from ..workspace import Workspace
from . import agents, context, feedback
from .answer import Job, stream_answer
from .finish import answered
from .options import AskOptions, AskResult, Output
from .question import store_question
from .summary import check_question, messages_for, planned
from .target import choose_target, last_model, unanswered


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
class Asker:
    """The pipeline for one workspace, speaking to ``out``."""

    ws: Workspace
    out: Output

    def ask(self, opts: AskOptions) -> AskResult:
        if opts.save:
            self.ws.store.pending.commit_kept()  # an answer kept by a failed write comes before this question
        reading = feedback.read(self.ws, opts, self.out.notice)
        if reading is not None:
            return self._as_read(reading, opts)
        waiting = unanswered(self.ws, opts, self.out)
        if waiting is not None:  # conv ask -c alone, after a fork at a question: answer it
            return self.retry(waiting, None, False, opts)
        target = choose_target(self.ws, opts, self.out)
        check_question(self.ws.config, target.prompt, target.system, target.agent, target.choice, self.out)
        provider = get_provider(target.choice.provider, self.ws.config)
        conv, question = store_question(self.ws, target, opts, self.out)
        messages = messages_for(self.ws, conv, conv, question, target.agent, (provider, target.choice), opts.save, self.out)
        job = Job(opts, provider, target.choice.provider, target.choice.model,
                  temperature=target.agent.temperature if target.agent else None)
        return self._finish(stream_answer(self.ws, conv, question, messages, job, self.out), opts)

    def preview(self, opts: AskOptions) -> Preview:
        """The ask, stopped before anything is stored or any model is called."""
        opts = replace(opts, save=False)
        target = choose_target(self.ws, opts, self.out)
        conv, question = store_question(self.ws, target, opts, self.out)
        return Preview(target.choice, planned(self.ws.config, conv, question, target.agent, target.choice))

    def retry(self, ref: str | None, hint: str | None, wrong: bool, opts: AskOptions) -> AskResult:
        """Answer the conversation's last question again. The new answer replaces
        the old one in the tree (the old one stays in history, see conv diff), or
        goes to a fork if the conversation moved on meanwhile (answer.place_retry);
        with a hint, or --wrong, the model is shown its old answer and told it was wrong."""
        ws = self.ws
        conv_id = ws.resolve(ref)
        base = ws.store.head()  # where the answer goes is decided against the conversation as read here
        conv = ws.conversation(conv_id, base)
        question = next((t for t in reversed(conv.turns) if t.role == "user"), None)
        if question is None:
            raise UsageError(f"{conv.id} has no question to answer again", f'Ask one: conv ask --cid {conv.id} "…"')
        old = next((t for t in conv.turns if t.role == "assistant" and t.parent == question.name), None)
        agent = agents.find(ws.config, conv.agent)
        spec = opts.model or (going_on_with(old.provider, old.model, ws.config) if old else None)
        choice = choose(ws.config, spec, (agent.name, agent.model) if agent else None, last_model(conv, ws.config))
        provider = get_provider(choice.provider, ws.config)
        before = replace(conv, turns=conv.turns[: conv.turns.index(question) + 1])
        messages = messages_for(ws, conv, before, question, agent, (provider, choice), opts.save, self.out)
        if old is not None and (hint or wrong):
            said = (hint or "").strip()
            because = f": {said}" + ("" if said[-1:] in ".!?" else ".") if said else "."
            messages += [Message("assistant", old.content), Message("user", f"That answer was wrong{because} Please answer again.")]
        job = Job(opts, provider, choice.provider, choice.model, replaces=old.name if old else None, hint=hint,
                  feedback="negative" if hint or wrong else None, temperature=agent.temperature if agent else None,
                  seed=int.from_bytes(os.urandom(4)) >> 1, base=base)
        return self._finish(stream_answer(ws, conv, question, messages, job, self.out), opts)

    def _as_read(self, reading: feedback.Reading, opts: AskOptions) -> AskResult:
        """A plain ask taken as feedback on the last answer (asked again, told
        it was wrong) or as its follow-up, said in one line with the way back."""
        short, said = self.ws.index.queries.short_id(reading.conv_id), " ".join(opts.words)
        undo = f'meant as a new question? conv ask --new "{said}"'
        if reading.kind == "negative":
            self.out.notice(f"taken as feedback on the last answer in {short}: asking again, told it was wrong "
                            f"(the old answer stays in its history: conv diff {short}); {undo}")
            return self.retry(reading.conv_id, reading.hint, True, replace(opts, words=[]))
        self.out.notice(f"taken as a follow-up to {short}; {undo}")
        return self.ask(replace(opts, cid=reading.conv_id))

    def _finish(self, result: AskResult, opts: AskOptions) -> AskResult:
        answered(self.ws, opts.save)
        return result
