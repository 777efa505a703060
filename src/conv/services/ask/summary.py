"""The stored summary of a conversation's older turns (see context.py): made
by the model that is answering, kept in conversation.md, extended as the
conversation grows."""

from ...errors import ProviderError
from ...providers import Message, Provider
from ...store import Written
from ..workspace import Workspace
from .context import Plan

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
