"""Asking, as a short pipeline of named steps that conv ask, conv retry and
conv chat share: decide once what the line is (decide.py), plan, act.

  decide (decide.py) → plan: the target (target.py) or the answer to redo
  → store the question (question.py) → the context, with its summary when
  due (summary.py) → stream and store the answer (answer.py) → finish (finish.py)

--dry-run stops after the plan and shows it. The question is committed
before the model is called, so an error, Ctrl-C or a crash never loses it;
the answer is committed after, whole, or as far as it came.
"""

import os

from ...errors import UsageError
from ...providers import Message, get_provider
from ...providers.choice import Choice, choose, going_on_with
from ...providers.options import check, parse, taken
from ...records import dataclass, field, replace
from ..workspace import Workspace
from . import agents, attachments, context, feedback
from .answer import Job, stream_answer
from .decide import FEEDBACK, WAITING, Decision, decide
from .finish import answered
from .options import AskOptions, AskResult, Output
from .question import store_question
from .summary import check_question, messages_for, planned
from .target import Target, choose_target, last_model


@dataclass
class Preview:
    """What ``conv ask --dry-run`` shows: the plan (what the line would be
    taken as, who would answer), and exactly what they would be sent (after
    the context's messages, what a retry adds)."""

    choice: Choice
    plan: context.Plan
    extra: list = field(default_factory=list)
    taken_as: str | None = None

    def messages(self) -> list[Message]:
        return self.plan.messages() + self.extra

    def to_dict(self) -> dict:
        return {
            "provider": self.choice.provider, "model": self.choice.model, "chosen_by": self.choice.source,
            "messages": [{"role": m.role, "content": m.content} for m in self.messages()],
            "summary_needed": len(self.plan.to_summarize) if self.plan.needs_summary else 0,
            "taken_as": self.taken_as,
        }


@dataclass
class Again:
    """A conversation's last question as a new answer to it reads it: the
    plan of a retry (conv retry, feedback, a waiting question)."""

    conv: object
    question: object
    old: object  # its answer, if it has one
    agent: object
    choice: Choice
    base: str  # the commit it was read at
    wrong: bool = False  # the user said the old answer was wrong (marked so in the new one)
    told: list = field(default_factory=list)  # what the model is told of its old answer (it was wrong)
    kept_hint: str | None = None  # stored with the new answer in the hint's place: what the user said

    @property
    def before(self):
        return replace(self.conv, turns=self.conv.turns[: self.conv.turns.index(self.question) + 1])


@dataclass
class Asker:
    """The pipeline for one workspace, speaking to ``out``."""

    ws: Workspace
    out: Output

    def ask(self, opts: AskOptions) -> AskResult:
        if opts.save:
            self.ws.store.kept_answers.commit_kept()  # an answer kept by a failed write comes before this question
        decision = decide(self.ws, opts, self.out)
        if decision.undo:
            undone = feedback.undo(self.ws, decision.undo)
            if undone:
                self.out.notice(f"{undone} is as it was before that line; asking it as a new question")
        if decision.reading is not None:
            return self._as_read(decision, opts)
        if decision.kind == WAITING:  # conv ask -c alone, after a fork at a question: answer it
            return self._again(self._answering(decision.conv_id, opts), opts)
        return self._new_answer(choose_target(self.ws, opts, decision, self.out), opts)

    def preview(self, opts: AskOptions) -> Preview:
        """The ask decided and planned, stopped before anything is stored or any model is called."""
        decision = decide(self.ws, opts, self.out)
        taken_as = decision.said_as(self.ws.index.queries.short_id)
        if decision.kind in (FEEDBACK, WAITING):
            at = self._answering(decision.conv_id, opts, *self._told(decision))
            return Preview(at.choice, planned(self.ws.config, at.before, at.question, at.agent, at.choice), at.told,
                           taken_as)
        opts = replace(opts, save=False)
        target = choose_target(self.ws, opts, decision, self.out)
        attached = attachments.read(opts.files, opts.stdin_file, self.ws.config.get("files.max_bytes"))
        conv, question = store_question(self.ws, target, opts, self.out, attached)
        say = attachments.Speaker(self.ws.store, conv.id, True)
        return Preview(target.choice, planned(self.ws.config, conv, question, target.agent, target.choice, say),
                       taken_as=taken_as)

    def retry(self, ref: str | None, hint: str | None, wrong: bool, opts: AskOptions) -> AskResult:
        """Answer the conversation's last question again. The new answer replaces
        the old one in the tree (the old one stays in history, see conv diff), or
        goes to a fork if the conversation moved on meanwhile (answer.place_retry);
        with a hint, or --wrong, the model is shown its old answer and told it was wrong."""
        return self._again(self._answering(self.ws.resolve(ref), opts, hint, wrong, hint), opts)

    def _new_answer(self, target: Target, opts: AskOptions) -> AskResult:
        """A new question or a follow-up: checked, stored, then answered."""
        attached = attachments.read(opts.files, opts.stdin_file, self.ws.config.get("files.max_bytes"))
        texts = [a.data.decode() for a in attached if not a.image]
        check_question(self.ws.config, "\n\n".join([target.prompt, *texts]), target.system, target.agent,
                       target.choice, self.out)
        provider = get_provider(target.choice.provider, self.ws.config)
        attachments.refuse_images([a.name for a in attached if a.image], provider, target.choice.provider,
                                  target.choice.model)
        options = _model_options(opts, provider, target.choice.provider, _agent_options(target.agent))
        conv, question = store_question(self.ws, target, opts, self.out, attached)
        messages = messages_for(self.ws, conv, conv, question, target.agent, (provider, target.choice), opts.save,
                                self.out)
        job = Job(opts, provider, target.choice.provider, target.choice.model, options=options)
        return self._finish(stream_answer(self.ws, conv, question, messages, job, self.out), opts, target.choice)

    def _answering(self, conv_id: str, opts: AskOptions, hint: str | None = None, wrong: bool = False,
                   kept_hint: str | None = None) -> Again:
        """The plan of a new answer to ``conv_id``'s last question, read at the head now."""
        ws = self.ws
        base = ws.store.head()  # where the answer goes is decided against the conversation as read here
        conv = ws.conversation(conv_id, base)
        question = next((t for t in reversed(conv.turns) if t.role == "user"), None)
        if question is None:
            raise UsageError(f"{conv.id} has no question to answer again", f'Ask one: conv ask --cid {conv.id} "…"')
        old = next((t for t in conv.turns if t.role == "assistant" and t.parent == question.name), None)
        agent = agents.find(ws.config, conv.agent)
        answered = going_on_with(old.provider, old.model, ws.config) if old else None  # retry's default: its model
        choice = choose(ws.config, opts.model, (agent.name, agent.model) if agent and not answered else None,
                        answered or last_model(conv, ws.config))
        return Again(conv, question, old, agent, choice, base, bool(hint or wrong), _told_wrong(old, hint, wrong),
                     kept_hint)

    def _again(self, at: Again, opts: AskOptions) -> AskResult:
        ws = self.ws
        provider = get_provider(at.choice.provider, ws.config)
        images = [str(f.get("name")) for f in at.question.files or [] if str(f.get("type")).startswith("image/")]
        attachments.refuse_images(images, provider, at.choice.provider, at.choice.model)
        asked_with = {k: v for k, v in ((at.old.options or {}) if at.old else {}).items() if k != "seed"}
        chosen = _agent_options(at.agent) | asked_with | {"seed": int.from_bytes(os.urandom(4)) >> 1}  # sample anew
        options = _model_options(opts, provider, at.choice.provider, chosen)
        messages = messages_for(ws, at.conv, at.before, at.question, at.agent, (provider, at.choice), opts.save,
                                self.out)
        job = Job(opts, provider, at.choice.provider, at.choice.model, replaces=at.old.name if at.old else None,
                  hint=at.kept_hint, feedback="negative" if at.wrong else None, options=options, base=at.base)
        return self._finish(stream_answer(ws, at.conv, at.question, messages + at.told, job, self.out), opts,
                            at.choice)

    @staticmethod
    def _told(decision: Decision) -> tuple:
        """(hint, wrong, what is kept as the hint) of a new answer the decision asks for."""
        reading = decision.reading
        if reading is None or reading.failed:  # a waiting question; an answer that did not finish
            return None, False, reading.said if reading else None
        return (reading.said if reading.hinted else None), True, reading.said

    def _as_read(self, decision: Decision, opts: AskOptions) -> AskResult:
        """A plain ask taken as feedback on the last answer (asked again, told
        it was wrong) or as its follow-up, said in one line with the way back,
        which really goes back (feedback.undo); the line is kept with the answer."""
        reading = decision.reading
        short, said, base = self.ws.index.queries.short_id(reading.conv_id), reading.said, self.ws.store.head()
        undo = f'meant as a new question? conv ask --new "{said}" puts {short} back as it was and asks that'
        if decision.kind == FEEDBACK:
            self.out.notice(f"taken as asking {short}'s last question again, as its answer did not finish; {undo}"
                            if reading.failed else
                            f"taken as feedback on the last answer in {short}: asking again, told it was wrong "
                            f"(the old answer stays in its history: conv diff {short}); {undo}")
            result = self._again(self._answering(reading.conv_id, opts, *self._told(decision)), opts)
        else:
            self.out.notice(f"taken as a follow-up to {short}; {undo}")
            result = self._new_answer(choose_target(self.ws, opts, decision, self.out), opts)
        feedback.remember(self.ws, reading, result, base)
        return result

    def _finish(self, result: AskResult, opts: AskOptions, choice: Choice) -> AskResult:
        answered(self.ws, opts.save)
        result.chosen_by = choice.source
        return result


def _agent_options(agent) -> dict:
    return {"temperature": agent.temperature} if agent and agent.temperature is not None else {}


def _model_options(opts: AskOptions, provider, provider_name: str, chosen: dict) -> dict:
    """What the model is asked with: the user's -o options, refused when the
    provider takes one not (before anything is stored), over those conv chose
    (an agent's temperature, what a retried answer was asked with, a retry's
    seed), which are dropped where the provider takes them not."""
    asked = parse(opts.model_options)
    check(asked, provider, provider_name)
    return taken(chosen, provider) | asked


def _told_wrong(old, hint: str | None, wrong: bool) -> list[Message]:
    """What a retry adds for the model: its old answer, and that it was wrong (and why)."""
    if old is None or not (hint or wrong):
        return []
    hint = (hint or "").strip()
    because = f": {hint}" + ("" if hint[-1:] in ".!?" else ".") if hint else "."
    return [Message("assistant", old.content), Message("user", f"That answer was wrong{because} Please answer again.")]
