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
_FENCE = re.compile(r"(```|~~~)[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:\1|\Z)", re.S)
_SHELL_FENCES = {"sh", "bash", "zsh", "fish", "shell", "console", "shell-session", "terminal"}
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
    of its first shell code fence (else unnamed fence, else first fence; ``` or
    ~~~) that is no comment; in an unnamed fence or without one, a line that is
    one whole inline code span or that starts with something a shell runs (a
    command on PATH, a builtin, a path, an assignment) and reads as no sentence. A list item's marker or a
    prompt sign is taken off, a command continued over lines (a trailing
    backslash, a here-document) is kept whole; no control character, no escape sequence, no
    trailing newline (one would run the line in some shells)."""
    answer = answer.replace("\r\n", "\n").replace("\r", "\n")  # a carriage return ends a line: never joins two
    fences = [(language.lower(), code) for _, language, code in _FENCE.findall(answer)]
    chosen = (next((f for f in fences if f[0] in _SHELL_FENCES), None) or next((f for f in fences if not f[0]), None)
              or (fences[0] if fences else None))
    trusted = chosen is not None and chosen[0] not in ("", "text", "txt", "plain")  # a fence named as code
    text = strip((chosen[1] if chosen else answer).replace("\t", " "))
    lines = text.split("\n")
    for n, line in enumerate(lines):
        line = _MARKER.sub("", line.strip(), count=1)
        if not line or line.startswith("#"):
            continue  # a blank line or a comment before the command
        spoken = _SPAN.fullmatch(line)
        if spoken:
            return spoken[1].strip()
        if not trusted and (not _runs(line) or _sentence(line)):
            continue  # a sentence, not a command
        return _whole(line, lines[n + 1:], trusted)
    return None


_HEREDOC = re.compile(r"<<-?[ ]*(['\"]?)([A-Za-z_]\w*)\1")


def _whole(line: str, rest: list[str], trusted: bool) -> str:
    """A command with the lines it goes on over: a here-document's body up to
    its end word, or the next line after a trailing backslash (never a
    sentence, never a blank line: the backslash then goes, Enter runs it)."""
    out, ends = [line], [word for _, word in _HEREDOC.findall(line)]
    for more in rest:
        if ends:
            out.append(more)
            if more.strip() == ends[0]:
                ends.pop(0)
        elif out[-1].endswith("\\") and more.strip() and (trusted or not _sentence(more.strip())):
            out.append(more)
            ends = [word for _, word in _HEREDOC.findall(more)]
        else:
            break
    whole = "\n".join(out).strip()
    return whole[:-1].rstrip() if whole.endswith("\\") else whole


_BUILTINS = {"alias", "bg", "bind", "builtin", "case", "cd", "command", "declare", "dirs", "echo", "eval", "exec",
             "exit", "export", "fc", "fg", "for", "function", "functions", "history", "if", "jobs", "kill", "let",
             "local", "popd", "printf", "pushd", "read", "set", "source", "test", "time", "trap", "type", "ulimit",
             "umask", "unalias", "unset", "until", "wait", "while"}


_SENTENCE_END = re.compile(r"(?:[A-Za-z]{2,}[.?!]+|…)[)\"'”]*\s*$")
_SMALL_WORDS = {"a", "an", "and", "are", "be", "but", "can", "could", "do", "for", "here", "how", "i", "if", "in", "is",
                "it", "me", "more", "my", "need", "not", "of", "on", "or", "please", "should", "so", "that", "the",
                "there", "this", "to", "we", "what", "which", "will", "with", "would", "you", "your"}


def _sentence(line: str) -> bool:
    """Whether a line reads as a sentence, not a command: it ends as one (a
    word and a full stop, a question or an ellipsis), or half its words are
    English's small words with nothing a command line has (a flag, a pipe, a
    path, a quote). ``echo`` and ``printf`` say sentences: never one."""
    if line.split(maxsplit=1)[0] in ("echo", "printf"):
        return False
    if _SENTENCE_END.search(line):
        return True
    words = re.findall(r"[A-Za-z']+", line.lower())
    commandish = any(c in line for c in "|<>$=/-'\"`;&*")
    return not commandish and len(words) >= 3 and 2 * sum(w in _SMALL_WORDS for w in words) >= len(words)


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
