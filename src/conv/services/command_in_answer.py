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
_ANY_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")  # a code span in a sentence: "Run this: `du -sh .`."
# A call in a programming language (os.listdir('.'), print(len(x)), "…", len(out)), never a shell's line;
# a shell function's definition (name() {) is one.
_PROGRAM = re.compile(r"^[A-Za-z_][\w.]*\((?!\)\s*\{)|,\s*[A-Za-z_][\w.]*\(")
_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)]|\$|%|>|#\s*\$)\s+")  # a list item's marker or a prompt sign
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_HEREDOC = re.compile(r"<<-?[ ]*(['\"]?)([A-Za-z_]\w*)\1")


def first_command(answer: str, shell: str | None = None) -> str | None:
    """The command an answer gives, or None when it gives none: the first line
    that is no comment of its first fence named as ``shell``, else as another
    shell, else of its first unnamed fence (``` or ~~~); a fence of another
    language is never taken. In an unnamed fence or without one, a line that
    is one whole inline code span, or that starts with something a shell runs
    and reads as no sentence; failing those, with no fence, the answer's one
    code span ("Run this: `du -sh .`."). Never a sentence, never another
    language's call. A list item's marker or a prompt sign is taken off; a
    command continued over lines (a trailing backslash, a here-document) is
    kept whole."""
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
            return spoken[1].strip() if _command(spoken[1].strip()) else None
        if _PROGRAM.search(line) or _sentence(line, trusted) or not (trusted or _runs(line)):
            continue  # a sentence, or another language's call, not a command
        return _whole(line, lines[n + 1:], trusted)
    spans = _ANY_SPAN.findall(text) if chosen is None else []
    return spans[0].strip() if len(spans) == 1 and _command(spans[0].strip()) else None


def _command(text: str) -> bool:
    """Whether a code span's text is a command a shell runs (one line, no sentence, no other language's call)."""
    return bool(text) and "\n" not in text and not _PROGRAM.search(text) and not _sentence(text, False) \
        and _runs(text)


def _visible(text: str) -> str:
    """``text`` as it looks: no invisible character (a zero-width space, a
    byte order mark), every other space a plain one."""
    return "".join(" " if unicodedata.category(c) == "Zs" else c for c in text if unicodedata.category(c) != "Cf")


def _whole(line: str, rest: list[str], fenced: bool) -> str:
    """A command with the lines it goes on over: a here-document's body up to
    its end word, a loop or a block up to its end (``done``, ``fi``, ``end``…),
    the next line after a trailing backslash (never a sentence, never a blank
    line: the backslash then goes, Enter runs it)."""
    out, ends, depth = [line], [word for _, word in _HEREDOC.findall(line)], _opened(line)
    for more in rest[:MOST_LINES]:
        if ends:
            out.append(more)
            if more.strip() == ends[0]:
                ends.pop(0)
        elif depth > 0 or out[-1].endswith("\\") and more.strip() and not _sentence(more.strip(), fenced):
            out.append(more)
            ends, depth = [word for _, word in _HEREDOC.findall(more)], depth + _opened(more)
        else:
            break
    whole = "\n".join(out).strip()
    return whole[:-1].rstrip() if whole.endswith("\\") else whole


MOST_LINES = 100  # of one command
_OPENERS = {"do", "then", "case", "{", "begin", "function", "switch"}  # bash's loop and if, fish's blocks
_CLOSERS = {"done", "fi", "esac", "}", "end"}


def _opened(line: str) -> int:
    """How many blocks ``line`` opens, less those it closes: each command of it
    (split at ; && || |) counted by its first word (fish's ``for``, ``while``
    and ``if`` too, where no ``do`` or ``then`` follows them)."""
    depth, fish_like = 0, not re.search(r"\b(?:do|then)\b", line)
    for part in re.split(r";|&&|\|\||\|", line):
        first = part.split(maxsplit=1)[0] if part.split() else ""
        if first in _OPENERS or fish_like and first in ("for", "while", "if"):
            depth += 1
        elif first in _CLOSERS:
            depth -= 1
    return depth


_BUILTINS = {":", "alias", "bg", "bind", "builtin", "case", "cd", "command", "declare", "dirs", "echo", "eval", "exec",
             "exit", "export", "fc", "fg", "for", "function", "functions", "history", "if", "jobs", "kill", "let",
             "local", "popd", "printf", "pushd", "read", "set", "source", "test", "time", "trap", "type", "ulimit",
             "umask", "unalias", "unset", "until", "wait", "while"}
_KEYWORDS = {"for", "while", "until", "if", "case", "select", "function", "do", "done", "then", "else", "fi", "esac",
             "begin", "end", "switch", "{", "}"}  # a line they lead is shell syntax, whatever words follow
_SYNTAX = re.compile(r"(?:\.{0,2}/|~/|\$[A-Za-z_{(]|\[\[? |\(|! |\{ |\. |[A-Za-z_][\w-]*\(\)\s*\{)")  # a path,
# a variable, a test, a group, a function's definition
_CONTRACTION = re.compile(r"(?<=[A-Za-z])['’](?=[A-Za-z])")  # I'm, can't: no quotes
# What a command line has and prose has not: a flag, a pipe, a list or a redirection, an assignment, a path, a
# quote, a glob, a variable, a backslash, the home folder.
_COMMANDISH = re.compile(r"(?:^|\s)--?[A-Za-z0-9]|[|<>=/`\"'&*;\\]|\$[A-Za-z_{(]|~(?=/|\s|$)")
_CLAUSE = re.compile(r"[,:] ")  # "who knows, try it", "Note: this needs root"
_SENTENCE_END = re.compile(r"(?:[A-Za-z]{2,}[.?!]+|…)[)\]\"'”]*\s*$")
_SMALL_WORDS = set("""a about again an and are as at be better but by can cannot could do every everything first
for from have here how i if in into is it its later me more my need never not of on or out please should so some sure
than that the them then there this to too up us we what when which who will with would you your yourself""".split())
_ANSWERS = {"yes", "no", "sure", "ok", "okay", "thanks", "done"}  # a word that answers, not a command
_SUBJECT_OF = {"is", "are", "was", "can", "cannot", "should", "will", "would", "does", "isn't", "doesn't"}


def _sentence(line: str, fenced: bool) -> bool:
    """Whether a line reads as a sentence, not a command. Its words are read
    after the last thing a command line has (a flag, a path, a quote…), or
    all of them where it has none: words joined as clauses (a comma, a
    colon) before anything of a command, a sentence's end, a note in
    brackets, three words or more with English's small words among them (one
    after a command's arguments; two and a third of them in a line of words
    alone). A line a shell keyword leads is syntax (``for f in a b c``);
    ``echo`` and ``printf`` say sentences, and are one only when a small word
    follows them; outside a shell's fence (not ``fenced``) a lone yes or ok
    answers."""
    bare = _CONTRACTION.sub("", line)
    before, comment, _ = bare.partition(" #")
    if comment and before.count("'") % 2 == 0 and before.count('"') % 2 == 0:
        bare = before  # a comment after the command says what it does: not read as the command's words
    tokens = bare.split()
    if tokens[0] in ("echo", "printf"):
        return len(tokens) > 1 and tokens[1] in _SUBJECT_OF  # "echo is not needed here"
    clause = _CLAUSE.search(bare)
    if clause and bare[:clause.start()].strip() and not _COMMANDISH.search(bare[:clause.start()]):
        return True
    found = list(_COMMANDISH.finditer(bare))
    tail = bare[found[-1].end():] if found else bare
    words = [w.lower() for w in (t.strip(",.:;!?()[]\"'") for t in tail.split()) if w.isalpha()]
    small = sum(word in _SMALL_WORDS for word in words)
    if words and _SENTENCE_END.search(tail):
        return True
    if not found and bare[:1] + bare[-1:] in ("()", "[]"):
        return True  # (This requires root)
    if tokens[0] in _KEYWORDS:
        return False
    longer = sum(word in _SMALL_WORDS and len(word) > 1 for word in words)  # not a file named a
    if found:
        return len(words) >= 2 and longer >= 1  # rm -rf ~ deletes your home directory
    return (len(words) >= 3 and (small >= 2 and 3 * small >= len(words) or 3 * longer >= len(words) > 0 < longer)
            or not fenced and len(tokens) == 1 and words == [tokens[0].lower()] and words[0] in _ANSWERS)


def _runs(line: str) -> bool:
    """Whether a line starts with something a shell runs: a command it finds,
    a builtin or keyword, a path, a variable set for the command, shell syntax."""
    import shutil

    words = line.split()
    while words and "=" in words[0] and not words[0].startswith("="):
        words = words[1:]  # FOO=bar cmd
    if not words:
        return False
    if _URL.match(words[0]):
        return False  # a link, no program
    first = re.split(r"[;&|<>()]", words[0])[0] or words[0]  # ls; pwd
    return (_SYNTAX.match(" ".join(words)) is not None or first in _BUILTINS or "/" in first
            or shutil.which(first) is not None)
