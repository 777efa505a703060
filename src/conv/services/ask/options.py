"""What an ask is told and what it gives back, shared by conv ask, retry and chat."""

from collections.abc import Callable

from ...records import dataclass, field


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
    # -o KEY VALUE as typed (providers/options.py reads them)
    model_options: list[tuple[str, str]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # -f: paths, "-" for stdin (attachments.py)
    stdin_file: bytes | None = None  # stdin's bytes, when -f - names it
    keep_model: bool = True  # a follow-up goes on with its conversation's last model (command mode: as the help says)


@dataclass
class Output:
    """Where an ask speaks: side remarks, and the answer's text as it arrives."""

    notice: Callable[[str], None]
    on_text: Callable[[str], None]


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
    forked_from: str | None = None  # a retry's answer kept in a fork: the conversation that moved on
    options: dict = field(default_factory=dict)  # the model options the answer was asked with
    chosen_by: str = ""  # which step of the model chain chose the model (providers/choice.py)

    def to_dict(self) -> dict:
        return {
            "conversation": self.conversation, "question_turn": self.question, "answer_turn": self.answer,
            "answer": self.text, "model": self.model, "provider": self.provider, "usage": self.usage,
            "finish": self.finish, "forked_from": self.forked_from, "options": self.options,
        }
