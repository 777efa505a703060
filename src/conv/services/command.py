"""Command mode (``conv cmd`` and the shell plugins' key): a description
becomes one shell command, for the user to read, edit and run; conv never
runs it. The exchange is stored like any other, in this terminal's command
conversation (apart from its current one, which Alt-F goes on with), so a
second description ("make it recursive") refines the last command with the
earlier ones as context. The model is told the shell and the OS; what goes
in the buffer is the first command of its answer, out of any fence or list,
without control characters; the whole answer is kept in the store."""

import os
import re
import sys

from ..errors import ProviderError
from ..home import session
from ..inert import strip
from ..records import dataclass
from .ask.options import AskOptions, Output
from .workspace import Workspace

SYSTEM = ("You turn what the user describes into one {shell} command for {os}. Reply with that command alone, "
          "on one line if it can be: no explanation, no code fence, no prompt sign. When the user asks for a "
          "change, reply with the whole changed command.")
SHELLS = ("zsh", "bash", "fish", "sh")
_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
_SHELL_FENCES = {"", "sh", "bash", "zsh", "fish", "shell", "console", "shell-session", "terminal"}
_SPAN = re.compile(r"^(?:[^`]*:\s*)?`([^`]+)`[.;,]?$")  # `ls -la`, or in prose: Run this: `ls -la`.
_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)]|\$|%|>|#\s*\$)\s+")  # a list item's marker or a prompt sign


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
    """Ask for the command ``description`` describes, in this terminal's command conversation."""
    from .ask.pipeline import Asker

    ws = CommandWorkspace(notice)
    conv_id = session.command_conversation(session.session_name() or session.DEFAULT)
    if conv_id is not None and not ws.store.has(conv_id):
        conv_id = None  # deleted: a new one, as after expiry
    system = SYSTEM.format(shell=shell, os=_os_name())
    opts = AskOptions(words=[description], cid=conv_id, model=model,  # no cid: a new conversation
                      system=None if conv_id else system, stream=False)
    result = Asker(ws, Output(notice=notice, on_text=lambda text: None)).ask(opts)
    command = first_command(result.text)
    if not command:
        raise ProviderError("the model answered with no command", f"Its answer is kept: conv show {result.short}")
    return Suggested(command, result.conversation, result.short, result.text, f"{result.provider}:{result.model}")


def first_command(answer: str) -> str:
    """The first command of an answer: inside its first shell (or unnamed)
    code fence, else its first fence; the first item when it lists several;
    the code after "…: " on a line of prose; a command continued over lines
    (a trailing backslash) whole. No control character, no escape sequence;
    no trailing newline (one would run the line in some shells)."""
    fences = _FENCE.findall(answer)
    shell = [code for language, code in fences if language.lower() in _SHELL_FENCES]
    text = (shell or [code for _, code in fences] or [answer])[0]
    text = strip(text.replace("\r\n", "\n").replace("\t", " "))
    lines = [line for line in text.split("\n") if line.strip()]
    out: list[str] = []
    for line in lines:
        if out and not out[-1].endswith("\\"):
            break
        if not out:
            line = _MARKER.sub("", line, count=1)
            spoken = _SPAN.match(line.strip())
            line = spoken[1] if spoken else line
        out.append(line)
    return "\n".join(out).strip()


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
