"""Command mode (``conv cmd`` and the shell plugins' key): a description
becomes one shell command, for the user to read, edit and run; conv never
runs it. The exchange is stored like any other, in this terminal's command
conversation (apart from its current one, which Alt-F goes on with), so a
second description ("make it recursive") refines the last command with the
earlier ones as context. The model is told the shell and the OS; what goes
in the buffer is the first command of its answer (command_in_answer.py);
the whole answer is kept in the store."""

import os
import sys

from ..errors import ConvError
from ..home import session
from ..providers.choice import USER_NAMED
from ..records import dataclass
from .ask.options import AskOptions, Output
from .command_in_answer import first_command
from .workspace import Workspace

SYSTEM = ("You turn what the user describes into one {shell} command for {os}. Reply with that command alone, "
          "on one line if it can be: no explanation, no code fence, no prompt sign. When the user asks for a "
          "change, reply with the whole changed command.")
SHELLS = ("zsh", "bash", "fish", "sh")


@dataclass
class Suggested:
    command: str  # what goes in the buffer: data, never run by conv
    conversation: str
    short: str
    answer: str  # the whole answer, as stored
    model: str

    def to_dict(self) -> dict:
        return {"command": self.command, "conversation": self.conversation, "answer": self.answer, "model": self.model}


class CommandWorkspace(Workspace):
    """A workspace whose conversation becomes this terminal's command
    conversation, not its current one."""

    def make_current(self, conv_id: str, turns: int) -> None:
        session.save_command_conversation(session.session_name() or session.DEFAULT, conv_id,
                                          self.config.get("session.expiry"))


def suggest(notice, description: str, shell: str, model: str | None = None) -> Suggested:
    """Ask for the command ``description`` describes, in this terminal's command
    conversation. The model is -m's, else CONV_MODEL's, else config's, else the
    next in line (never the command conversation's last one: what the user set
    now decides), named when the user set none."""
    from .ask.pipeline import Asker

    ws = CommandWorkspace(notice)
    conv_id = session.command_conversation(session.session_name() or session.DEFAULT)
    if conv_id is not None and not ws.store.has(conv_id):
        conv_id = None  # deleted: a new one, as after expiry
    system = SYSTEM.format(shell=shell, os=_os_name())
    opts = AskOptions(words=[description], cid=conv_id, model=model,  # no cid: a new conversation
                      system=None if conv_id else system, stream=False, keep_model=False)
    result = Asker(ws, Output(notice=notice, on_text=lambda text: None)).ask(opts)
    spec = f"{result.provider}:{result.model}"
    command = first_command(result.text, shell)
    if not command:
        said = " ".join(result.text.split())
        raise ConvError(f"the answer holds no command ({spec} said: {said[:80] + '…' if len(said) > 80 else said})",
                        f"Nothing was put in the line; describe it again, or read the answer: conv show {result.short}")
    if result.chosen_by not in USER_NAMED:
        notice(f"{spec} answered (chosen by {result.chosen_by}; set one with CONV_MODEL or conv config set model)")
    return Suggested(command, result.conversation, result.short, result.text, spec)


def _os_name() -> str:
    if sys.platform == "darwin":
        return "macOS"
    if sys.platform.startswith("linux"):
        try:
            with open("/etc/os-release") as release:
                found = dict(line.rstrip().split("=", 1) for line in release if "=" in line)
            return f"Linux ({found.get('PRETTY_NAME', 'Linux').strip(chr(34))})"
        except OSError:
            return "Linux"
    return os.uname().sysname if hasattr(os, "uname") else sys.platform
