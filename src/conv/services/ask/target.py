"""The first step of an ask: which conversation it goes to (new, -c, --cid,
an agent's latest, this terminal's current one), what the question is, under
which agent and system prompt, and which model answers. Nothing is stored yet."""

from ...errors import UsageError
from ...format import ids
from ...format.model import Conversation
from ...format.words import span
from ...home.config import Config
from ...providers.choice import Choice, choose, going_on_with
from ...records import dataclass
from .. import refs
from ..current import current
from ..workspace import Workspace
from . import agents
from .agents import Agent
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


def unanswered(ws: Workspace, opts: AskOptions, out: Output) -> str | None:
    """A follow-up with no text (``conv ask -c``) to a conversation whose last
    question has no answer (a fork made at a question): that conversation,
    whose question is to be answered. None otherwise."""
    if " ".join(opts.words).strip() or opts.stdin_text or not (opts.follow or opts.cid) or opts.new:
        return None
    quiet = Output(lambda _: None, out.on_text)  # what -c would pick is said when it is asked, not here
    conv_id, _ = _conversation(ws, opts, quiet)
    return conv_id if conv_id and _waiting(ws.conversation(conv_id)) else None


def choose_target(ws: Workspace, opts: AskOptions, out: Output) -> Target:
    question(opts.words, opts.stdin_text)  # refuse an empty question before anything else
    conv_id, words = _conversation(ws, opts, out)
    prompt = question(words, opts.stdin_text)
    existing = ws.conversation(conv_id) if conv_id else None
    for path, reason in (existing.unreadable if existing else {}).items():
        out.notice(f"{path} cannot be read ({reason}); the follow-up goes without it")
    if existing and _waiting(existing):
        short = ws.index.queries.short_id(conv_id)
        out.notice(f"{short}'s last question has no answer: it goes along, unanswered, before this one "
                   f"(conv ask --cid {short} with no text answers it first)")
    if opts.last_command:
        command, status = opts.last_command
        prompt += f"\n\n(My last shell command was `{command}`; it exited with status {status}.)"
    agent = _agent(ws, opts, conv_id, out)
    choice = choose(ws.config, opts.model, (agent.name, agent.model) if agent else None,
                    None if opts.model or (agent and agent.model) else last_model(existing, ws.config, out))
    system = opts.system if opts.system is not None else (agent.system if agent else None)
    return Target(conv_id, existing, prompt, agent, choice, system)


def _waiting(conv: Conversation) -> bool:
    """Whether the conversation ends in a question with no answer."""
    spoken = [t for t in conv.turns if t.role in ("user", "assistant")]
    return bool(spoken) and spoken[-1].role == "user"


def question(words: list[str], stdin_text: str | None) -> str:
    """The question: the words typed, then any text piped in."""
    text = " ".join(words)
    if stdin_text:
        text = f"{text}\n\n{stdin_text}" if text.strip() else stdin_text
    if not text.strip():
        raise UsageError("nothing to ask", 'Give a question, e.g. conv ask "explain git rebase", or pipe text in')
    return text


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


def _conversation(ws: Workspace, opts: AskOptions, out: Output) -> tuple[str | None, list[str]]:
    """The conversation to follow up (None: a new one), and the question's words."""
    words = list(opts.words)
    if opts.cid:
        return refs.resolve(ws, opts.cid), words
    if opts.new or not opts.follow:
        return None, words
    # a lone word is the question; a ref needs a question after it (or piped in)
    if words and ids.looks_like_ref(words[0]) and (len(words) > 1 or opts.stdin_text):
        found = refs.candidates(ws, words[0])
        if len(found) > 1:
            refs.resolve(ws, words[0])  # the error --cid gives, naming them
        if found:
            return found[0], words[1:]
        out.notice(f"{words[0]!r} names no conversation: it is sent as part of the question "
                   f"(to pick a conversation: conv ask --cid REF …)")
    if opts.agent:
        return _agents_latest(ws, opts.agent, out), words
    return _current(ws, out), words


def _agents_latest(ws: Workspace, name: str, out: Output) -> str | None:
    """-a with -c: this terminal's conversation if it is the agent's, else the agent's latest."""
    from ...index import Filters

    now = current(ws)
    row = ws.index.queries.get(now.conv_id) if now.conv_id and now.why != "session-expired" else None
    if row and row.agent == name:
        return row.id
    latest = ws.index.queries.recent(1, Filters(agent=name))
    if not latest:
        out.notice(f"agent {name} has no conversation yet; starting one")
    return latest[0].id if latest else None


def _current(ws: Workspace, out: Output) -> str | None:
    now = current(ws)
    if now.why == "session-expired":
        out.notice(
            f"{now.short} has been idle for {span(now.idle)}; starting a new conversation "
            f"(continue the old one with: conv ask --cid {now.short} …)"
        )
        return None
    if now.conv_id is None:
        out.notice("no conversation to continue; starting a new one")
    return now.conv_id

