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

from ..errors import ConvError
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
_SPAN = re.compile(r"`([^`]+)`[.;]?")  # a line that is one inline code span, the whole command: `ls -la`
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
    command = first_command(result.text)
    if not command:
        said = " ".join(result.text.split())
        raise ConvError(f"the answer holds no command ({spec} said: {said[:80] + '…' if len(said) > 80 else said})",
                        f"Nothing was put in the line; describe it again, or read the answer: conv show {result.short}")
    if result.chosen_by not in USER_SET:
        notice(f"{spec} answered (chosen by {result.chosen_by}; set one with CONV_MODEL or conv config set model)")
    return Suggested(command, result.conversation, result.short, result.text, spec)


USER_SET = ("-m", "CONV_MODEL", "config model")  # choice.chain's steps where the user named the model


def first_command(answer: str) -> str | None:
    """The command an answer gives, or None when it gives none: the first line
    of its first shell (or unnamed) code fence, else of its first fence, that
    is no comment; without a fence, a line that is one whole inline code span
    or that starts with something a shell runs (a command on PATH, a builtin,
    a path, an assignment), never a sentence. A list item's marker or a
    prompt sign is taken off, a command continued over lines (a trailing
    backslash) is kept whole; no control character, no escape sequence, no
    trailing newline (one would run the line in some shells)."""
    fences = _FENCE.findall(answer)
    shell = [code for language, code in fences if language.lower() in _SHELL_FENCES]
    fenced = (shell or [code for _, code in fences])[:1]
    text = strip((fenced[0] if fenced else answer).replace("\r\n", "\n").replace("\t", " "))
    lines = [line for line in text.split("\n") if line.strip()]
    for n, line in enumerate(lines):
        line = _MARKER.sub("", line.strip(), count=1)
        if not line or line.startswith("#"):
            continue  # a comment before the command
        spoken = _SPAN.fullmatch(line)
        if spoken:
            return spoken[1].strip()
        if not fenced and not _runs(line):
            continue  # a sentence, not a command
        out = [line]
        for more in lines[n + 1:]:
            if not out[-1].endswith("\\"):
                break
            out.append(more)
        return "\n".join(out).strip()
    return None


_BUILTINS = {"alias", "bg", "bind", "builtin", "case", "cd", "command", "declare", "dirs", "echo", "eval", "exec",
             "exit", "export", "fc", "fg", "for", "function", "functions", "history", "if", "jobs", "kill", "let",
             "local", "popd", "printf", "pushd", "read", "set", "source", "test", "time", "trap", "type", "ulimit",
             "umask", "unalias", "unset", "until", "wait", "while"}


def _runs(line: str) -> bool:
    """Whether a line starts with something a shell runs: a command it finds,
    a builtin or keyword, a path, a variable set for the command, shell syntax."""
    import shutil

    words = line.split()
    while words and "=" in words[0] and not words[0].startswith("="):
        words = words[1:]  # FOO=bar cmd
    if not words:
        return False
    first = words[0]
    return (first[0] in "(!{[$./~" or first in _BUILTINS or "/" in first
            or shutil.which(first) is not None)


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
