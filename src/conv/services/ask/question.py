"""Storing the question, before any model is called: an error, Ctrl-C or a
crash later never loses it. A new conversation is created in the same
commit; a system prompt that changed becomes a turn of its own; a paused
conversation becomes active again."""

from ...format import ids
from ...format.model import Conversation, Turn, now_iso
from ...format.naming import title_from
from ...format.turn_files import Attachment, attach
from ..workspace import Workspace
from .agents import Agent
from .finish import committed
from .options import AskOptions, Output
from .target import Target


def store_question(ws: Workspace, target: Target, opts: AskOptions, out: Output,
                   attached: list[Attachment] = ()) -> tuple[Conversation, Turn]:
    """The conversation as it now is, and the question's turn, with the files
    sent with it stored beside it (with ``opts.save`` off, the same, built in
    memory and stored nowhere)."""
    conv_id, agent = target.conv_id, target.agent
    new_conv = None
    if conv_id is None:
        from ...home import project  # here: a follow-up never needs it

        new_conv = Conversation(
            id=ids.new_conversation_id(agent.name if agent else None), created=now_iso(),
            title=title_from(" ".join(opts.words) or target.prompt), model=target.choice.model,
            provider=target.choice.provider, agent=agent.name if agent else None,
            system_hash=agent.prompt_hash if agent else None, project=project.here(),
        )
        conv_id = new_conv.id
    existing = target.existing
    system = target.system
    if system is not None and existing and _last_system(existing) == system:
        system = None  # unchanged: only a new system prompt becomes a turn
    made: list[Turn] = []

    def make_turns(parent: str | None) -> list[Turn]:
        made.clear()
        if system is not None:
            made.append(Turn(ids.new_turn_name("system"), "system", system, now_iso(), parent))
            parent = made[-1].name
        made.append(attach(Turn(ids.new_turn_name("user"), "user", target.prompt, now_iso(), parent), list(attached)))
        return made

    if not opts.save:
        conv = new_conv or existing
        conv.turns += make_turns(conv.turns[-1].name if conv.turns else None)
        return conv, made[-1]
    changed = _prompt_changed(existing, agent, out)
    resumed = existing is not None and existing.status == "paused"  # taken up again: active once more
    if changed or resumed:
        def edit(draft) -> str:
            if changed:
                draft.conv.system_hash = agent.prompt_hash
            if resumed:
                draft.conv.status = "active"
            draft.save_meta()
            names = draft.turn_names
            for turn in make_turns(names[-1] if names else None):
                draft.put(turn)
            return f"{conv_id}: ask" + (f" (agent {agent.name}'s prompt changed)" if changed else " (active again)")

        written = ws.store.change(conv_id, edit)
    else:
        written = ws.store.add_turns(conv_id, make_turns, f"{conv_id}: ask", new_conv)
    conv = ws.conversation(conv_id, written.new)
    committed(ws, conv, written)
    return conv, made[-1]


def _prompt_changed(conv: Conversation | None, agent: Agent | None, out: Output) -> bool:
    """Whether the agent's system prompt differs from the one the conversation
    last ran under (a warning, and the stored hash follows)."""
    if conv is None or agent is None or agent.prompt_hash is None or conv.system_hash == agent.prompt_hash:
        return False
    if conv.system_hash:
        out.notice(f"agent {agent.name}'s system prompt has changed since this conversation last used it; "
                   "the new one applies from here (the old one stays in its history)")
    return True


def _last_system(conv: Conversation) -> str | None:
    return next((t.content for t in reversed(conv.turns) if t.role == "system"), None)
