"""Agents: named settings in config (``agents.NAME.*``) — a system prompt, a
model, a temperature and a context policy — that a conversation is started
with (``-a NAME``) and keeps. Their conversations' ids carry the name
(``coder-k3f9x2…``), and the prompt's hash is stored with the conversation so
a follow-up can tell when the prompt was changed since.
"""

from ...errors import UsageError
from ...home.config import Config
from ...home.values import agent_name
from ...records import dataclass


@dataclass
class Agent:
    name: str
    system: str | None = None
    model: str | None = None
    temperature: float | None = None
    max_messages: int | None = None
    max_tokens: int | None = None

    @property
    def prompt_hash(self) -> str | None:
        return prompt_hash(self.system) if self.system else None


def prompt_hash(text: str) -> str:
    import hashlib  # here: 4 ms of import that only agents need

    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]


def load(config: Config, name: str) -> Agent:
    """The agent as configured; a one-line error when there is none by that name."""
    try:
        agent_name(name)
    except ValueError as exc:
        raise UsageError(f"bad agent name {name!r}: {exc}") from None
    if name not in config.names("agents"):
        known = ", ".join(config.names("agents")) or "none yet"
        raise UsageError(
            f"no agent {name!r} in config (known: {known})",
            f"Define it: conv config set agents.{name}.system \"You are …\"",
        )

    def get(field: str):
        return config.get(f"agents.{name}.{field}")

    return Agent(name, get("system"), get("model"), get("temperature"),
                 get("context.max_messages"), get("context.max_tokens"))


def find(config: Config, name: str | None) -> Agent | None:
    """The agent a conversation belongs to, if it is still configured."""
    if not name or name not in config.names("agents"):
        return None
    return load(config, name)
