"""An ask's target, once decide.py knows which conversation it goes to:
the question, under which agent and system prompt, and which model answers.
Nothing is stored yet."""

from ...format.model import Conversation
from ...home.config import Config
from ...providers.choice import Choice, choose, going_on_with
from ...records import dataclass
from ..workspace import Workspace
from . import agents
from .agents import Agent
from .decide import Decision, question, waiting_note
from .options import AskOptions, Output


@dataclass
class Target:
    """An ask worked out before anything is stored: where, what, by whom."""

    conv_id: str | None  # None: a new conversation
    existing: Conversation | None  # the conversation followed up, as stored
    prompt: str
    agent: Agent | None
    choice: Choice
    system: str | None


def choose_target(ws: Workspace, opts: AskOptions, decision: Decision, out: Output) -> Target:
    conv_id = decision.conv_id
    prompt = question(decision.words, opts.stdin_text)
    existing = ws.conversation(conv_id) if conv_id else None
    for path, reason in (existing.unreadable if existing else {}).items():
        out.notice(f"{path} cannot be read ({reason}); the follow-up goes without it")
    if existing:
        waiting_note(ws, existing, out)
    if opts.last_command:
        command, status = opts.last_command
        prompt += f"\n\n(My last shell command was `{command}`; it exited with status {status}.)"
    agent = _agent(ws, opts, conv_id, out)
    going_on = (None if opts.model or (agent and agent.model) or not opts.keep_model
                else last_model(existing, ws.config, out))
    choice = choose(ws.config, opts.model, (agent.name, agent.model) if agent else None, going_on)
    system = opts.system if opts.system is not None else (agent.system if agent else None)
    return Target(conv_id, existing, prompt, agent, choice, system)


def last_model(conv: Conversation | None, config: Config, out: Output | None = None) -> str | None:
    """``PROVIDER:MODEL`` of the conversation's last answer, which a follow-up
    goes on with; for an imported one, only when a provider here serves it
    (said on ``out`` when not)."""
    last = (next((t for t in reversed(conv.turns) if t.role == "assistant" and t.provider and t.model), None)
            if conv else None)
    spec = going_on_with(last.provider, last.model, config) if last else None
    if last and spec is None and out is not None:
        out.notice(f"this conversation's model {last.model} came with it from {last.provider}, and no provider "
                   "here serves it: the next model in line answers (see conv models)")
    return spec


def _agent(ws: Workspace, opts: AskOptions, conv_id: str | None, out: Output) -> Agent | None:
    """A new conversation takes ``-a``'s agent; an existing one keeps its own."""
    if conv_id is None:
        return agents.load(ws.config, opts.agent) if opts.agent else None
    row = ws.index.queries.get(conv_id)
    own = row.agent if row else None
    if opts.agent and opts.agent != own:
        short = ws.index.queries.short_id(conv_id)
        out.notice(f"{short} belongs to agent {own}; it goes on with {own}'s settings" if own else
                   f"{short} was started without an agent; -a {opts.agent} applies to new conversations")
    return agents.find(ws.config, own)
