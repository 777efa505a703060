"""The one way in for everything foreign: another tool's files (and a
teammate's side ref, importers/project.py). A reader says how its files are
found and loaded and what one record looks like (``Reader``); ``read_file``
is the only loop over the records: it checks each against the reader's
shape (shape.py), leaves out and counts those that do not fit, names a file
that cannot be read, and hands the reader only records it may trust. What
the reader makes of them is checked once more, turn by turn, before it
becomes a conversation (``checked_turns``): a role conv knows, text, a time
(one that cannot be used is dated by the turns around it, the one rule for
every source), usage as counts.

Nothing a file holds ends the import: a file that cannot be read is one line
("FILE: not read: why"), records left out are one line a file ("3 records of
FILE left out: …"), and the other files go on.
"""

from collections import Counter
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone
from pathlib import Path

from ..format.edits import commands_of, edits_of
from ..format.model import ROLES, iso
from ..format.naming import title_from
from ..format.sound import sound
from ..format.usage import usage_of
from ..format.words import plural
from ..records import dataclass, field
from .files import Unparsed, Unreadable, files_at, json_lines
from .imported import ImportedConversation, ImportedTurn
from .shape import Anything, Misfit, Shape, moment

MOST_LINE = 200  # characters kept of a model's name or a title
TURN_MOST = 1 << 20  # characters of an imported turn's text kept in the turn; the whole is kept beside it
# What a reader's own code may still raise on input its shapes let through: the
# file is then named as not read, never a traceback (the hostile-file tests hold
# the readers to never needing it).
NOT_UNDERSTOOD = (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError, OverflowError)


@dataclass
class Loaded:
    records: list  # as found: each is checked against the reader's ``record`` shape
    head: dict = field(default_factory=dict)  # what the file says once, about them all (aichat's model)


class Reader:
    """How one tool's files become conversations; each importer is one of these.

    - ``source``: the name ``conv import --from`` takes, and ``title`` the
      tool's own, both from the folder's ``Source`` it is made with
      (sources/contract.py); ``hint``: where the tool keeps its files, said
      when a path is wrong.
    - ``pattern``: the tool's files in a folder (``files`` by default: the
      file named, or those the pattern matches in the folder).
    - ``record``: the shape of one record; ``load`` finds the records of a
      file (raising Unreadable when it cannot; by default a JSON record a
      line, as Claude Code, Codex and gptme keep a session); ``conversations``
      makes conversations of the records that fit.
    - ``per_session``: one file a session, so that only files that changed
      are read again; ``keeps_no_ids``: no ids or times to know a turn by
      (matched by text on a second import, by_text.continue_stored);
      ``unasked_too``: a conversation with no question in it is one (else a
      session nobody asked anything in is none); ``companions``: files
      beside each one (its name and a suffix) whose change is its change (a
      database's write-ahead log), for the catch-up;
      ``version``: of what it makes of a file, so that a file it read whole
      before it changed is read again (home/imports.py, the catch-up).
    """

    hint = ""
    pattern = "*"
    record: Shape = Anything
    per_session = True
    keeps_no_ids = False
    unasked_too = False  # a conversation nobody asked anything in is one too (conv's own: a fork of a system prompt)
    version = 2  # of what it makes of a file: files read whole by another are read again (2: format 2's classes)
    companions: tuple[str, ...] = ()

    def __init__(self, source):
        self.source, self.title = source.name, source.title

    def default_path(self) -> Path | None:
        """Where the tool keeps its files on this machine (None: it has no such place)."""
        return None

    def files(self, path: Path) -> list[Path]:
        """The files of the tool's at ``path``: the one named, or those in the folder."""
        return files_at(path, self.pattern, self.hint)

    def load(self, file: Path) -> Loaded:
        return Loaded(json_lines(file))

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        raise NotImplementedError


@dataclass
class Found:
    """What one file gave: its conversations, and the lines saying what of it was left out."""

    conversations: list
    said: list = field(default_factory=list)

    @property
    def whole(self) -> bool:
        """Read with nothing left out: it need not be read again until it changes."""
        return not self.said


def read_file(reader: Reader, file: Path) -> Found:
    """The one loop over a file's records: each checked against the reader's shape."""
    try:
        loaded = reader.load(file)
    except Unreadable as exc:
        return Found([], [f"{file}: not read: {exc}"])
    except OSError as exc:
        return Found([], [f"{file}: not read: {exc.strerror or exc}"])
    records, misfits = fitting(loaded.records, reader.record)
    said = [_left_out(file, Counter(misfits))] if misfits else []
    try:
        found = reader.conversations(Loaded(records, loaded.head), file)
    except NOT_UNDERSTOOD as exc:
        return Found([], [*said, f"{file}: not read: a record conv could not make sense of ({type(exc).__name__})"])
    end = _changed(file)
    for conversation in found:
        said += _finished(conversation, file, end)
    return Found([c for c in found if c.turns and (reader.unasked_too or any(t.role == "user" for t in c.turns))],
                 said)  # a tool's session nobody asked anything in: no conversation


def fitting(records: Iterable, shape: Shape) -> tuple[list, list[str]]:
    """The one loop over foreign records: (those that fit ``shape``, as it
    checked them; why each other one does not). A record the shape passes
    over (None: not part of a conversation) is in neither."""
    kept, misfits = [], []
    for record in records:
        if isinstance(record, Unparsed):
            misfits.append(record.why)
            continue
        try:
            checked = shape.check(record)
        except Misfit as misfit:
            misfits.append(misfit.why)
            continue
        if checked is not None:
            kept.append(checked)
    return kept, misfits


def _left_out(file: Path, misfits: Counter) -> str:
    count = sum(misfits.values())
    reasons = "; ".join(f"{why}" + (f" ({n})" if n > 1 else "") for why, n in misfits.most_common(3))
    more = f"; and {plural(len(misfits) - 3, 'other reason')}" if len(misfits) > 3 else ""
    return f"{plural(count, 'record')} of {file} left out: {reasons}{more}"


def _changed(file: Path) -> datetime:
    try:
        return datetime.fromtimestamp(file.stat().st_mtime, timezone.utc)
    except (OSError, ValueError, OverflowError):
        return datetime.now(timezone.utc)


def _finished(conversation: ImportedConversation, file: Path, end: datetime) -> list[str]:
    """The conversation's turns checked and dated, its own fields made safe; what was left out, said."""
    turns, dropped = checked_turns(conversation.turns)
    start = moment(conversation.created)
    conversation.undated = start is None and all(moment(t.created) is None for t in turns)
    conversation.turns = dated(turns, start, end)
    conversation.created = iso(start) if start else (conversation.turns[0].created if conversation.turns else iso(end))
    conversation.title = one_line(conversation.title) or title_from(
        next((t.content for t in conversation.turns if t.role == "user"), ""))
    conversation.model = one_line(conversation.model) or None
    conversation.source_id = sound(str(conversation.source_id))
    conversation.fork_of = sound(conversation.fork_of) if isinstance(conversation.fork_of, str) else None
    conversation.origin = {k: sound(v) for k, v in conversation.origin.items() if isinstance(v, str) and v}
    said = [sound(line) for line in conversation.skipped]  # (a line may name an id of bad bytes)
    if dropped:
        said.append(f"{plural(dropped, 'turn')} of {conversation.source_id} in {file} left out: "
                    "no role conv knows, or no text")
    conversation.skipped = []
    return said


def checked_turns(turns: Iterable[ImportedTurn]) -> tuple[list[ImportedTurn], int]:
    """What becomes a turn, checked in one place: (the turns that may, how many may not)."""
    out, dropped = [], 0
    for turn in turns:
        if turn.role not in ROLES or not isinstance(turn.content, str):
            dropped += 1
            continue
        turn.content = _bounded(turn, sound(turn.content), "text")
        turn.model = one_line(turn.model) or None
        turn.usage = usage_of(turn.usage)
        turn.thinking = sound(turn.thinking) if isinstance(turn.thinking, str) and turn.thinking else None
        turn.source_id = sound(str(turn.source_id))
        turn.injected = [{"kind": one_line(note["kind"]), "text": _bounded(turn, sound(note["text"]), "injected")}
                         for note in turn.injected]
        turn.edits = edits_of([_sounded(e) for e in turn.edits]) or []
        turn.commands = commands_of([_sounded(c) for c in turn.commands]) or []
        out.append(turn)
    return out, dropped


def _bounded(turn: ImportedTurn, text: str, kept_as: str) -> str:
    """A turn's text (or what was injected with it) within TURN_MOST
    characters: a longer one is cut in the turn, said, and kept whole beside
    it (never sent; conv show, the index and the context read the turn)."""
    if len(text) <= TURN_MOST:
        return text
    name = f"{kept_as}-{len(turn.kept) + 1}.txt"
    turn.kept.append((name, text.encode()))
    return text[:TURN_MOST] + f"\n[… {len(text) - TURN_MOST:,} more characters, kept whole beside this turn as {name}]"


def _sounded(item: dict) -> dict:
    """An edit's or a command's texts made safe to write (sound), its other values as they are."""
    return {k: sound(v) if isinstance(v, str) else v for k, v in item.items()}


def one_line(text) -> str:
    """A name or title on one line, of a sane length."""
    if not isinstance(text, str):
        return ""
    return " ".join(sound(text).split())[:MOST_LINE]


def dated_from(conversation: ImportedConversation, created: str) -> None:
    """An undated conversation's turns dated from when the store says it began (``created``), as the first
    import dated them: the same turns get the same names however its file's time moves."""
    start = moment(created)
    if start is not None:
        for turn in conversation.turns:
            turn.created = None
        conversation.turns, conversation.created = dated(conversation.turns, start, start), created


def dated(turns: list[ImportedTurn], start: datetime | None, end: datetime) -> list[ImportedTurn]:
    """Every turn an ISO time, strictly after the one before it (conv orders
    turns by the time in their names). A turn without a usable time comes 1 ms
    after the one before it; those before the first dated one, 1 ms apart
    just before it; with no time at all, from the conversation's own start,
    else ending at the file's last change (shell-gpt and aichat keep none). A
    turn conv itself named (its own export) keeps its time: its name orders it."""
    moments = [moment(t.created) for t in turns]
    first = next((n for n, m in enumerate(moments) if m is not None), None)
    step = timedelta(milliseconds=1)
    if first is None:
        anchor = start if start is not None else end - step * max(len(turns) - 1, 0)
        moments = [anchor + step * n for n in range(len(turns))]
    else:
        for n in range(first - 1, -1, -1):
            moments[n] = moments[n + 1] - step
    previous = None
    for turn, when in zip(turns, moments):
        when = when.replace(microsecond=when.microsecond // 1000 * 1000) if when else None  # conv's precision
        kept = turn.name is not None and when is not None  # conv's own turn: its name orders it, its time stays
        if when is None or (previous is not None and when <= previous and not kept):
            when = previous + step
        turn.created, previous = iso(when), when
    return turns
