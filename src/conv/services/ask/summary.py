"""The context step of an ask: what the model is sent, within the budget
(context.py), and the stored summary of the older turns that the budget
calls for: made by the model that is answering, kept in conversation.md,
extended as the conversation grows."""

from collections.abc import Callable

from ...errors import ProviderError, UsageError
from ...format.model import Conversation, Turn
from ...home.config import Config
from ...providers import Message, Provider, windows
from ...providers.choice import Choice
from ...records import replace
from ...store import Written
from ..workspace import Workspace
from . import context
from .agents import Agent
from .attachments import Speaker
from .context import Plan
from .options import Output

INSTRUCTION = (
    "You condense conversations so they can be continued later. Summarize the conversation you are given, "
    "keeping every fact, decision, name, number, piece of code and open question needed to go on with it. "
    "Be brief. Reply with the summary only."
)


def summarize(provider: Provider, model: str, plan: Plan, most: int | None) -> str:
    """The summary so far, extended with the messages that now fall out of the
    window: at most ``most`` tokens (asked for, and cut to it if the model
    wrote more), so that it and the latest turns always fit beside each other."""
    transcript = "\n\n".join(f"{m.role.capitalize()}: {m.content}" for m in plan.to_summarize)
    request = (f"Summary so far:\n{plan.summary}\n\nThe conversation since:\n{transcript}" if plan.summary
               else transcript)
    instruction = INSTRUCTION + (f" Use at most {most * 3 // 4} words." if most else "")
    pieces: list[str] = []
    provider.complete([Message("system", instruction), Message("user", request)], model, pieces.append, stream=False)
    text = "".join(pieces).strip()
    if not text:
        raise ProviderError("the model returned an empty summary")
    if most and context.tokens([Message("system", text)]) > most:
        text = text[: most * context.CHARS_PER_TOKEN].rstrip() + " […]"
    return text


def store(ws: Workspace, conv_id: str, through: str, text: str, spec: str) -> Written:
    def edit(draft) -> str:
        draft.conv.context_summary = {"through": through, "text": text, "model": spec}
        draft.save_meta()
        return f"{conv_id}: summary of the older turns, through {through}"

    return ws.store.change(conv_id, edit)


def budget(config: Config, agent: Agent | None, choice: Choice) -> context.Budget:
    """The agent's context settings, else the config's; without a token
    limit, what the answering model's window holds. It names the limit that
    applies, for what conv says when it cuts."""
    messages = (agent and agent.max_messages) or config.get("context.max_messages")
    max_tokens = (agent and agent.max_tokens) or config.get("context.max_tokens")
    room = windows.room(choice.provider, choice.model, config)
    whose = f"agent {agent.name}'s " if agent and (agent.max_messages or agent.max_tokens) else ""
    named = [f"{whose}context.max_tokens ({max_tokens:,} tokens)" if max_tokens else "",
             f"{whose}context.max_messages ({messages:,})" if messages else ""]
    limit = " and ".join(n for n in named if n) or f"what {choice.model} reads at once (about {room:,} tokens)"
    return context.Budget(messages, max_tokens, room, limit)


def check_question(config: Config, prompt: str, system: str | None, agent: Agent | None, choice: Choice,
                   out: Output) -> None:
    """A question that cannot fit the model's window is refused before it is
    stored or sent; where the window is conv's guess (a model it does not
    know), it is sent with that said, as the server may read more."""
    size = context.question_too_big(prompt, system, budget(config, agent, choice))
    if size is None:
        return
    room = windows.room(choice.provider, choice.model, config)
    if windows.known(choice.provider, choice.model) or size > windows.LARGEST:
        raise UsageError(f"this question is about {size:,} tokens, more than {choice.model} reads at once (about "
                         f"{room:,} beside its answer); nothing was stored or sent",
                         "Send less (e.g. head -c 20000 FILE), or ask a model with a larger window: -m MODEL")
    out.notice(f"this question is about {size:,} tokens, more than the {room:,} conv assumes {choice.model} reads "
               "at once; sent as it is (the server may cut it)")


def planned(config: Config, conv: Conversation, question: Turn, agent: Agent | None, choice: Choice,
            say: Callable[[Turn], Message] = context.plain) -> Plan:
    """The plan for ``question`` within the budget, with the resume note a
    conversation taken up after a break gets (``context.resume_after``);
    ``say`` makes a turn a message, files and all (attachments.Speaker)."""
    wanted = context.plan(conv, question, budget(config, agent, choice), say)
    return replace(wanted, note=context.resume_note(conv, question, config.get("context.resume_after")))


def messages_for(ws: Workspace, conv: Conversation, sent: Conversation, question: Turn, agent: Agent | None,
                 answering: tuple[Provider, Choice], save: bool, out: Output) -> list[Message]:
    """What the model is sent for ``question`` from the turns of ``sent``: the
    budget's plan, its summary made (and stored in ``conv``) when it is due,
    said once with the limit that applied; without one, if the model can't
    make it, the latest turns alone, and that said too."""
    provider, choice = answering
    limit = budget(ws.config, agent, choice).limit
    wanted = planned(ws.config, sent, question, agent, choice, Speaker(ws.store, sent.id, provider.IMAGES))
    if wanted.nearly_full:
        out.notice(f"this conversation nears {limit}: soon its older turns go as a summary "
                   "(conv config set context.max_tokens N to choose how much goes whole)")
    if not wanted.needs_summary:
        return wanted.messages()
    cut = f"; {wanted.clipped} of them too long for its request, cut in the middle" if wanted.clipped else ""
    out.notice(f"this conversation outgrows {limit}: its {len(wanted.to_summarize)} older messages go as a "
               f"summary made by {choice.spec}{cut}, the latest whole")
    try:
        text = summarize(provider, choice.model, wanted, budget(ws.config, agent, choice).beside(
            [wanted.question]).summary_tokens())
    except ProviderError as exc:
        out.notice(f"could not summarize the older turns ({exc.message}); sending the latest ones only")
        return replace(wanted, to_summarize=[]).messages()
    if save:
        store(ws, conv.id, wanted.through, text, choice.spec)
    return replace(wanted, summary=text, to_summarize=[]).messages()
