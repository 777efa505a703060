"""``conv chat``: what the lines typed into a chat mean, and which conversation
the chat is in. The terminal side (readline, the prompt, Ctrl-C) is cli/run/chat.py;
this part needs no terminal, so it is tested without one."""

from collections.abc import Callable

from ..errors import UsageError
from ..format.model import Conversation
from ..records import dataclass, field
from .ask import agents
from .ask.options import AskOptions, AskResult, Output
from .ask.pipeline import Asker
from .fork import Forked, fork
from .metadata import set_status, set_title
from .workspace import Workspace

BLOCK = '"""'  # a line of its own that opens or closes a multi-line message

# name: (argument, what it does), in the order /help lists them
COMMANDS = {
    "retry": ("[HINT]", "answer the last question again; HINT tells the model what was wrong"),
    "fork": ("[N]", "go on in a new conversation made of turns 1..N (default: all of them)"),
    "title": ("[TEXT]", "set the title; without TEXT, show it"),
    "show": ("", "the conversation so far"),
    "new": ("", "the next message starts a new conversation (this one is kept)"),
    "clear": ("", "the same as /new: a clean context, in the same chat"),
    "history": ("", "the conversations of this chat"),
    "model": ("[NAME]", "answer with NAME from now on; without NAME, show the model"),
    "file": ("PATH", "send the file with the next message (text, or an image to a model that sees them)"),
    "stop": ("", "pause this conversation and leave (conv resume takes it up again)"),
    "help": ("", "this help"),
    "exit": ("", "leave (Ctrl-D on an empty line too); the conversation is paused"),
}
# A short line like these, typed in a chat, may mean the user wants to stop: offer to pause.
STOP_PHRASES = ("let's stop", "lets stop", "that's enough", "thats enough", "i need to go", "i have to go",
                "gotta go", "let's pause", "let's call it a day")


@dataclass
class Command:
    """A line starting with ``/``: the command's name and the rest of the line."""

    name: str
    arg: str = ""


class Composer:
    """Typed lines to messages and commands. A line ending in a backslash goes on
    on the next line; the lines between two lines of three double quotes are one
    message, kept as typed (for pasted code); a one-line message that starts
    with ``/`` is a command, and ``//`` sends it as a message starting with ``/``."""

    def __init__(self):
        self.lines: list[str] = []
        self.block = False

    @property
    def pending(self) -> bool:
        """A message is half typed: the next line goes on with it."""
        return self.block or bool(self.lines)

    def reset(self) -> None:
        """Drop a half-typed message (Ctrl-C at the prompt)."""
        self.lines, self.block = [], False

    def feed(self, line: str) -> str | Command | None:
        """The message or command this line completes; None while one is half
        typed, or when nothing was typed."""
        if self.block:
            if line.strip() == BLOCK:
                return self._done()
            self.lines.append(line)
            return None
        if not self.lines and line.strip() == BLOCK:
            self.block = True
            return None
        if line.endswith("\\"):
            self.lines.append(line[:-1])
            return None
        if not self.lines and line.strip().startswith("/"):
            return _command(line.strip())
        self.lines.append(line)
        return self._done()

    def _done(self) -> str | None:
        text = "\n".join(self.lines)
        self.reset()
        return text if text.strip() else None


def _command(line: str) -> str | Command:
    if line.startswith("//"):
        return line[1:]
    name, _, arg = line[1:].partition(" ")
    if name not in COMMANDS:
        known = ", ".join(f"/{n}" for n in COMMANDS)
        raise UsageError(f"unknown command /{name}", f"The commands are {known} (// starts a message with /)")
    return Command(name, arg.strip())


class ChatWorkspace(Workspace):
    """A workspace that follows the conversation it last made current. The
    Asker makes the conversation it writes to current after every commit, and
    fork makes the fork current, so this is where the chat is: even when the
    first answer failed after its question was stored."""

    following: str | None = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.visited: list[str] = []  # every conversation this chat has been in, first to last

    def make_current(self, conv_id: str, turns: int) -> None:
        self.following = conv_id
        if conv_id not in self.visited:
            self.visited.append(conv_id)
        super().make_current(conv_id, turns)


@dataclass
class Chat:
    """One chat: its conversation (None until the first message) and what
    every message is asked with."""

    ws: ChatWorkspace
    notice: Callable[[str], None]
    model: str | None = None
    system: str | None = None
    agent: str | None = None  # for the conversation the first message starts
    files: list = field(default_factory=list)  # /file: paths to send with the next message

    @classmethod
    def open(cls, ref: str | None, follow: bool, notice: Callable[[str], None], **options) -> "Chat":
        """A chat in conversation ``ref``, this terminal's current one (``follow``), or a new one."""
        if options.get("agent") and (ref or follow):
            raise UsageError("-a starts a new conversation",
                             "Leave out REF and -c (a conversation keeps its own agent)")
        if ref and follow:
            raise UsageError("REF and -c both name the conversation to continue", "Give one of them")
        chat = cls(ChatWorkspace(notice), notice, **options)
        if chat.agent:
            agents.load(chat.ws.config, chat.agent)  # an unknown agent fails now, not after a message is typed
        if ref or follow:
            conv_id = chat.ws.resolve(ref)
            chat.ws.make_current(conv_id, len(chat.ws.conversation(conv_id).turns))
        return chat

    @property
    def conv_id(self) -> str | None:
        return self.ws.following

    @property
    def short(self) -> str | None:
        return self.ws.index.queries.short_id(self.conv_id) if self.conv_id else None

    def send(self, text: str, on_text: Callable[[str], None]) -> AskResult:
        """Ask ``text``: the first message starts the conversation, the rest follow up."""
        new = self.conv_id is None
        opts = AskOptions(words=[text], cid=self.conv_id, new=new, model=self.model, system=self.system,
                          agent=self.agent if new else None, files=list(self.files))
        try:
            result = Asker(self.ws, Output(self.notice, on_text)).ask(opts)
        except UsageError:
            raise  # refused before anything was stored: the files wait for the next message
        except BaseException:
            self.files.clear()  # stored with the question, whatever became of the answer
            raise
        self.files.clear()
        return result

    def attach(self, path: str) -> str:
        """``/file PATH``: checked now (it must exist, be text or an image, within
        files.max_bytes), sent with the next message; what it is, said."""
        from .ask.attachments import read

        if not path:
            raise UsageError("/file takes a path", "e.g. /file src/main.py")
        found, = read([path], None, self.ws.config.get("files.max_bytes"))
        self.files.append(path)
        return f"{path} ({found.type}, {len(found.data):,} bytes)"

    def retry(self, hint: str, on_text: Callable[[str], None]) -> AskResult:
        opts = AskOptions(words=[], model=self.model)
        return Asker(self.ws, Output(self.notice, on_text)).retry(self._here(), hint or None, False, opts)

    def fork(self, at: str) -> Forked:
        """Fork at turn ``at`` (all turns when empty); the chat goes on in the fork."""
        if at and not at.isdigit():
            raise UsageError(f"/fork takes a turn number, not {at!r}", "e.g. /fork 3, or /fork for all turns")
        return fork(self.ws, self._here(), int(at) if at else None)

    def title(self, text: str) -> str:
        """Set the title when ``text`` is given; the title either way."""
        if text:
            set_title(self.ws, self._here(), text)
        return self.conversation().title

    def conversation(self) -> Conversation:
        return self.ws.conversation(self._here())

    def start_over(self) -> str | None:
        """``/new``, ``/clear``: the next message starts a new conversation; the one left (if any)."""
        left, self.ws.following, self.agent = self.conv_id, None, None
        return left

    def history(self) -> list[tuple[str, str, int, bool]]:
        """(short id, title, turns, whether the chat is in it) for each conversation of this chat."""
        rows = []
        for conv_id in self.ws.visited:
            conv = self.ws.conversation(conv_id)
            rows.append((self.ws.index.queries.short_id(conv_id), conv.title, len(conv.turns), conv_id == self.conv_id))
        return rows

    def switch_model(self, name: str) -> str:
        """``/model NAME``: the model of the next answers, as ``-m`` takes it
        (checked now, not at the next message); without NAME, the model the
        last answer came from. Either way, PROVIDER:MODEL."""
        from ..providers.choice import choose

        if name:
            spec = choose(self.ws.config, name).spec
            self.model = name
            return spec
        if self.model:
            return choose(self.ws.config, self.model).spec
        answers = [t for t in self.conversation().turns if t.role == "assistant" and t.model] if self.conv_id else []
        return f"{answers[-1].provider}:{answers[-1].model}" if answers else "not chosen yet (see conv models)"

    def pause(self) -> bool:
        """Leaving the chat: its conversation, if active, is marked paused
        (the next question to it makes it active again). Whether it was."""
        if self.conv_id is None or self.conversation().status != "active":
            return False
        set_status(self.ws, self.conv_id, "paused")
        return True

    def _here(self) -> str:
        if self.conv_id is None:
            raise UsageError("no conversation yet", "Type a message first")
        return self.conv_id


def sounds_like_stopping(message: str) -> bool:
    """A short message that reads as "let's stop here" (STOP_PHRASES)."""
    text = " ".join(message.lower().replace("\u2019", "'").split()).strip(" .!")
    return len(text) <= 40 and any(phrase in text for phrase in STOP_PHRASES)
