"""``conv handoff REF --to TOOL``: a conversation carried on in another tool.
It is written as a session of the tool (its handoff.py under sources/), its
turns in order, masked as all conv hands outside the store (a key, a URL's
password, a bearer token: home/secrets.outward), and remembered
(home/handoffs.py), so that the tool's new turns come back into the same
conversation when the capture or an import reads the session (services/
imports.py asks ``handed_back``), and a purge takes the file too. What the tool's
format cannot hold is said."""

import os

from ..errors import UsageError
from ..format.words import plural
from ..home.secrets import outward
from ..inert import strip
from ..records import dataclass, field, replace
from .redacting import Redacting
from .workspace import Workspace


@dataclass
class HandedOff:
    conv_id: str
    short: str
    tool: str
    session_id: str
    file: str
    resume: list
    turns: int
    left_out: list = field(default_factory=list)  # one line each
    comes_back: bool = False  # the tool is connected: its new turns come back by the capture

    def to_dict(self) -> dict:
        return {"id": self.conv_id, "short": self.short, "to": self.tool, "session": self.session_id,
                "file": self.file, "resume": self.resume, "turns": self.turns, "left_out": self.left_out,
                "comes_back": self.comes_back}


def hand_off(ws: Workspace, ref: str | None, to: str) -> HandedOff:
    from .. import sources
    from ..home import handoffs
    from ..home.connected import connected

    tool = sources.named(to, "handoff", "conv hands off to no tool called {name!r}")
    writer = tool.handoff()
    conv = ws.conversation(ws.resolve(ref))
    carried = [t for t in conv.turns if t.role in ("user", "assistant") and t.content.strip() and not _failed(t)]
    if not carried:
        raise UsageError(f"{conv.id} has no question or answer to hand off", "ask in it first")
    inert = [strip(t.content) for t in carried]  # what leaves the store: nothing that acts on a terminal, masked
    here = _here()
    redactor = Redacting(ws).of(conv, keep=(here,))  # what gives the user away, but the folder the tool works in
    sent = [replace(t, content=redactor(outward(text))) for t, text in zip(carried, inert)]
    written = _written(writer, to, sent, here, redactor(outward(strip(conv.title))))
    handoffs.remember(to, written.session_id, conv.id, _read_back(tool, written.file) or [t.role for t in carried],
                      carried[-1].name, written.file)
    masked = sum(outward(text) != text for text in inert)
    yours = sum(f.count for kind, f in redactor.report.kinds.items() if kind != "key")
    left_out = _left_out(conv, carried) + ([f"what looked like a key or a password in {plural(masked, 'turn')} "
                                            "(masked as ***)"] if masked else []) + (
        [f"{plural(yours, 'mention')} of you (your home, login, host, e-mail; masked as conv share masks them)"]
        if yours else [])
    return HandedOff(conv.id, ws.index.queries.short_id(conv.id), to, written.session_id, written.file,
                     written.resume, len(carried), left_out, connected(to))


def _read_back(tool, file: str) -> list[str]:
    """The roles of the turns the tool's own reader makes of the session just
    written (two answers in a row read as one, a question the tool takes for
    its own context as none): what the import, later, knows as handed off."""
    from pathlib import Path

    from .. import importers

    read = importers.read(tool.reader(), Path(file))
    return [turn.role for turn in read.conversations[0].turns] if read.conversations else []


def _failed(turn) -> bool:
    """An answer that failed on its way (what came before the error is no answer to carry on from)."""
    return turn.role == "assistant" and (turn.finish == "error" or bool(turn.error))


def _here() -> str:
    """The folder the tool will be resumed in (its sessions are kept by folder)."""
    try:
        cwd = os.getcwd()
        cwd.encode("utf-8")
    except FileNotFoundError:
        raise UsageError("the current folder is gone", "cd into the project to resume it in, then hand off") from None
    except UnicodeEncodeError:
        raise UsageError("the current folder's name is not UTF-8, which the tools' session files need",
                         "cd into a folder with a UTF-8 name") from None
    return cwd


def _written(writer, to: str, carried: list, cwd: str, title: str):
    from ..errors import ConvError

    try:
        return writer.write(carried, cwd, title)
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        raise ConvError(f"cannot write the {to} session{where}: {exc.strerror or exc}",
                        "Check that the tool's folder (CLAUDE_CONFIG_DIR, CODEX_HOME) is a folder you can write to"
                        ) from None


def _left_out(conv, carried: list) -> list[str]:
    """What of the conversation the session does not hold."""
    out = []
    system = [t for t in conv.turns if t.role == "system"]
    if system:
        out.append("its system prompt (the tool uses its own)")
    files = [f.get("name", "?") for t in carried for f in (t.files or [])]
    if files:
        out.append(f"{plural(len(files), 'file')} sent with its turns ({', '.join(files[:5])}"
                   f"{', …' if len(files) > 5 else ''}): their text is not in the session")
    thinking = sum(1 for t in carried if t.thinking)
    if thinking:
        out.append(f"the thinking of {plural(thinking, 'answer')}")
    failed = [t for t in conv.turns if t.role == "assistant" and _failed(t)]
    if failed:
        out.append(f"{plural(len(failed), 'answer')} that failed")
    empty = [t for t in conv.turns if t.role in ("user", "assistant") and not t.content.strip() and not _failed(t)]
    if empty:
        out.append(plural(len(empty), "empty turn"))
    return out


def handed_back(ws: Workspace, source: str, imported) -> dict | None:
    """For a session conv handoff wrote, its conversation's files up to the
    turns it was handed, with ``imported`` made the session's new turns in
    that conversation; None for any other session (or one whose start is
    not what was handed: then it comes in as a conversation of its own)."""
    from ..home import handoffs

    handed = handoffs.find(source, imported.source_id)
    if handed is None or [t.role for t in imported.turns[:len(handed["roles"])]] != handed["roles"]:
        return None
    trashed = ws.in_trash(handed["conv"])
    if trashed is None:
        return None
    names = [t.name for t in ws.store.read(handed["conv"], trashed=trashed).turns]
    if handed["last"] not in names:
        return None
    kept = names[:names.index(handed["last"]) + 1]
    files = {name: sha for name, sha in ws.store.files(handed["conv"], trashed=trashed).items()
             if name == "conversation.md" or any(name.startswith(turn) for turn in kept)}
    imported.conv_id, imported.turns = handed["conv"], imported.turns[len(handed["roles"]):]
    return {"last": handed["last"], "files": files}


def resumed_by(imported_from: dict) -> list[str] | None:
    """The command line that resumes an imported conversation in the tool it came from (None: a tool conv
    knows no resume of, or no session id)."""
    from .. import sources
    from ..errors import ConvError

    tool, session = imported_from.get("source"), imported_from.get("id")
    if not tool or not session:
        return None
    try:
        return sources.named(tool, "handoff", "").handoff().resume(str(session))
    except ConvError:
        return None
