"""What of a model's answer goes in the user's command line (command mode):
the first command it gives, or none. A model asked for a command may answer
with prose, a refusal, a note, several fences or a list; a sentence must
never land in the line (Enter would run it), nor a real command be refused.
What is taken is data: no control character, no escape sequence, nothing
invisible, no trailing newline (one would run the line in some shells)."""

import re
import unicodedata

from ..inert import strip

_FENCE = re.compile(r"(```|~~~)[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:\1|\Z)", re.S)
SHELL_FENCES = {"sh", "bash", "zsh", "fish", "shell", "console", "shell-session", "terminal"}
_SPAN = re.compile(r"`([^`]+)`[.;]?")  # a line that is one inline code span, the whole command: `ls -la`
_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)]|\$|%|>|#\s*\$)\s+")  # a list item's marker or a prompt sign
_HEREDOC = re.compile(r"<<-?[ ]*(['\"]?)([A-Za-z_]\w*)\1")


def first_command(answer: str, shell: str | None = None) -> str | None:
    """The command an answer gives, or None when it gives none: the first line
    that is no comment of its first fence named as ``shell``, else as another
    shell, else of its first unnamed fence (``` or ~~~); a fence of another
    language is never taken. In an unnamed fence or without one, a line that
    is one whole inline code span, or that starts with something a shell runs
    and reads as no sentence. A list item's marker or a prompt sign is taken
    off; a command continued over lines (a trailing backslash, a
    here-document) is kept whole."""
    answer = answer.replace("\r\n", "\n").replace("\r", "\n")  # a carriage return ends a line: never joins two
    fences = [(language.lower(), code) for _, language, code in _FENCE.findall(answer)]
    chosen = next((f for f in fences if f[0] == shell), None) \
        or next((f for f in fences if f[0] in SHELL_FENCES), None) or next((f for f in fences if not f[0]), None)
    trusted = chosen is not None and chosen[0] in SHELL_FENCES
    text = _visible(strip((chosen[1] if chosen else _FENCE.sub("\n", answer)).replace("\t", " ")))
    lines = text.split("\n")
    for n, line in enumerate(lines):
        line = _MARKER.sub("", line.strip(), count=1)
        if not line or line.startswith("#"):
            continue  # a blank line or a comment before the command
        spoken = _SPAN.fullmatch(line)
        if spoken:
            return spoken[1].strip()
        if _sentence(line, trusted) or not (trusted or _runs(line)):
            continue  # a sentence, not a command
        return _whole(line, lines[n + 1:], trusted)
    return None


def _visible(text: str) -> str:
    """``text`` as it looks: no invisible character (a zero-width space, a
    byte order mark), every other space a plain one."""
    return "".join(" " if unicodedata.category(c) == "Zs" else c for c in text if unicodedata.category(c) != "Cf")


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
        elif out[-1].endswith("\\") and more.strip() and not _sentence(more.strip(), trusted):
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
_SYNTAX = re.compile(r"(?:\.{0,2}/|~/|\$[A-Za-z_{(]|\[\[? |\(|! |\{ |\. )")  # a path, a variable, a test, a group
_CONTRACTION = re.compile(r"(?<=[A-Za-z])['’](?=[A-Za-z])")  # I'm, can't: no quotes
# What a command line has and prose has not: a flag, a pipe or redirection, an assignment, a path, a quote,
# a glob, a variable, a backslash.
_COMMANDISH = re.compile(r"(?:^|\s)--?[A-Za-z0-9]|[|<>=/`\"'&*\\]|\$[A-Za-z_{(]")
_CLAUSE = re.compile(r"[,:;] ")  # "who knows, try it", "Note: this needs root"
_SENTENCE_END = re.compile(r"(?:[A-Za-z]{2,}[.?!]+|…)[)\]\"'”]*\s*$")
_SMALL_WORDS = {"a", "about", "an", "and", "are", "be", "better", "but", "can", "could", "do", "first", "for", "have",
                "here", "how", "i", "if", "in", "into", "is", "it", "me", "more", "my", "need", "not", "of", "on",
                "or", "out", "please", "should", "so", "sure", "that", "the", "then", "there", "this", "to", "we",
                "what", "which", "who", "will", "with", "would", "you", "your"}


def _sentence(line: str, fenced: bool) -> bool:
    """Whether a line reads as a sentence, not a command: words joined as
    clauses before anything a command line has, or, with nothing a command
    line has, a line that ends as a sentence does; outside a shell's fence
    (``fenced``) also a line of three words or more, two and a third of them
    English's small words. ``echo`` and ``printf`` say sentences: never one."""
    if line.split(maxsplit=1)[0] in ("echo", "printf"):
        return False
    bare = _CONTRACTION.sub("", line)
    clause = _CLAUSE.search(bare)
    if clause and bare[:clause.start()].strip() and not _COMMANDISH.search(bare[:clause.start()]):
        return True
    if _COMMANDISH.search(bare):
        return False
    if _SENTENCE_END.search(bare):
        return True
    words = re.findall(r"[a-z]+", bare.lower())
    small = sum(word in _SMALL_WORDS for word in words)
    return not fenced and len(words) >= 3 and small >= 2 and 3 * small >= len(words)


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
    return (_SYNTAX.match(" ".join(words)) is not None or first in _BUILTINS or "/" in first
            or shutil.which(first) is not None)
