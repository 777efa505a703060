"""The context step of an ask: what the model is sent, within the budget
(context.py), and the stored summary of the older turns that the budget
calls for: made by the model that is answering, kept in conversation.md,
extended as the conversation grows."""

from ...errors import ProviderError
from ...format.model import Conversation, Turn
from ...home.config import Config
from ...providers import Message, Provider, windows
from ...providers.choice import Choice
from ...records import replace
from ...store import Written
from ..workspace import Workspace
from . import context
from .agents import Agent
from .context import Plan
from .options import Output

INSTRUCTION = (
    "You condense conversations so they can be continued later. Summarize the conversation you are given, "
    "keeping every fact, decision, name, number, piece of code and open question needed to go on with it. "
    "Be brief. Reply with the summary only."
)


def summarize(provider: Provider, model: str, plan: Plan) -> str:
    """The summary so far, extended with the messages that now fall out of the window."""
    transcript = "\n\n".join(f"{m.role.capitalize()}: {m.content}" for m in plan.to_summarize)
    request = f"Summary so far:\n{plan.summary}\n\nThe conversation since:\n{transcript}" if plan.summary else transcript
    pieces: list[str] = []
    provider.complete([Message("system", INSTRUCTION), Message("user", request)], model, pieces.append, stream=False)
    text = "".join(pieces).strip()
    if not text:
        raise ProviderError("the model returned an empty summary")
    return text


def store(ws: Workspace, conv_id: str, through: str, text: str, spec: str) -> Written:
    def edit(draft) -> str:
        draft.conv.context_summary = {"through": through, "text": text, "model": spec}
        draft.save_meta()
        return f"{conv_id}: summary of the older turns, through {through}"

    return ws.store.change(conv_id, edit)


def budget(config: Config, agent: Agent | None, choice: Choice) -> context.Budget:
    """The agent's context settings, else the config's; without a token
    limit, what the answering model's window holds."""
    return context.Budget(
        (agent and agent.max_messages) or config.get("context.max_messages"),
        (agent and agent.max_tokens) or config.get("context.max_tokens"),
        windows.room(choice.provider, choice.model, config),
    )


def planned(config: Config, conv: Conversation, question: Turn, agent: Agent | None, choice: Choice) -> Plan:
    """The plan for ``question`` within the budget, with the resume note a
    conversation taken up after a break gets (``context.resume_after``)."""
    wanted = context.plan(conv, question, budget(config, agent, choice))
    return replace(wanted, note=context.resume_note(conv, question, config.get("context.resume_after")))


def messages_for(ws: Workspace, conv: Conversation, sent: Conversation, question: Turn, agent: Agent | None,
                 answering: tuple[Provider, Choice], save: bool, out: Output) -> list[Message]:
    """What the model is sent for ``question`` from the turns of ``sent``: the
    budget's plan, its summary made (and stored in ``conv``) when it is due;
    without one, if the model can't make it."""
    provider, choice = answering
    wanted = planned(ws.config, sent, question, agent, choice)
    if wanted.nearly_full:
        out.notice(f"this conversation nears what {choice.model} can read at once: soon its older turns "
                   "go as a summary (conv config set context.max_tokens N to choose how much goes whole)")
    if not wanted.needs_summary:
        return wanted.messages()
    if wanted.left_out:
        out.notice(f"the {wanted.left_out} oldest messages do not fit {choice.model}'s window beside the others; "
                   "the summary covers the later ones")
    try:
        text = summarize(provider, choice.model, wanted)
    except ProviderError as exc:
        out.notice(f"could not summarize the older turns ({exc.message}); sending the latest ones only")
        return replace(wanted, to_summarize=[]).messages()
    if save:
        store(ws, conv.id, wanted.through, text, choice.spec)
    return replace(wanted, summary=text, to_summarize=[]).messages()
