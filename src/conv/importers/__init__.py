"""Readers that turn other tools' conversation data into one in-memory model.

Each reader (``llm``, ``chatgpt``) is a pure function of a path: it never
touches the store, so ``conv import`` can show, dry-run or write what it read.
The writer names everything deterministically from the source's own ids
(``conversation_id``, ``turn_name``), so importing the same data twice lands
on the same paths instead of making duplicates.

Readers guarantee that the turns of a conversation have strictly increasing
``created`` times (``strictly_increasing``): conv orders turns by the time in
their names, and sources often give a question and its answer, or a system
prompt and the first question, the same time.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

from ..errors import UsageError
from ..format import ids
from ..format.model import iso, title_from
from ..records import dataclass, field

# source name -> module with ``read(path) -> list[ImportedConversation]``;
# imported only when asked for (conv's startup budget).
READERS = {"llm": "conv.importers.llm", "chatgpt": "conv.importers.chatgpt", "conv": "conv.importers.conv",
           "claude-code": "conv.importers.claude_code", "codex": "conv.importers.codex",
           "shell-gpt": "conv.importers.shell_gpt", "gptme": "conv.importers.gptme", "aichat": "conv.importers.aichat"}
PROJECT = "project"  # conv import --from project: no tool's files, a project's side refs (services/projects.py)
PARALLEL_FROM = 50  # session files from which worker processes read them


@dataclass
class ImportedTurn:
    role: str  # "user" | "assistant" | "system"
    content: str
    created: str  # ISO 8601 UTC with ms and Z, as conv.format.iso() makes
    model: str | None = None
    usage: dict | None = None  # {"prompt_tokens", "completion_tokens"} when known
    source_id: str = ""  # stable id of this message in the source
    files: list = field(default_factory=list)  # (name, bytes) of each file sent with it
    kept: list = field(default_factory=list)  # (name, bytes) kept beside it, never sent (a tool's whole output)
    thinking: str | None = None  # the model's thinking: kept, never sent


@dataclass
class ImportedConversation:
    source: str  # "llm" | "chatgpt"
    source_id: str  # the source's id; a ChatGPT side branch is "<conv id>#<leaf node id>"
    title: str
    created: str
    model: str | None
    turns: list[ImportedTurn] = field(default_factory=list)
    fork_of: str | None = None  # source_id of the conversation this branch forks from
    fork_at: int | None = None  # number of leading turns shared with it
    origin: dict = field(default_factory=dict)  # where it happened, as the source knew it (cwd, git_branch)
    skipped: list = field(default_factory=list)  # what of the source could not be read, said to the user


def place(source: str, path: str | None) -> Path:
    """``path``, or where ``source`` keeps its conversations when none is given."""
    reader = _reader(source)
    if path is not None:
        return Path(path).expanduser()
    if not hasattr(reader, "default_path"):
        raise UsageError(f"conv import --from {source} needs a path", "Give the file or folder to import")
    return reader.default_path()


def read(source: str, path: Path) -> list[ImportedConversation]:
    """The conversations in ``path`` as ``source`` wrote them."""
    reader = _reader(source)
    if hasattr(reader, "session_files"):  # a file a session
        return [c for file in reader.session_files(Path(path)) for c in reader.session(file)]
    return reader.read(Path(path))


def by_session(source: str) -> bool:
    """Whether ``source`` keeps one file a session (Claude Code), so that only the changed ones need reading."""
    return hasattr(_reader(source), "session_files")


def read_changed(source: str, path: Path, changed: Callable[[list[Path]], list[Path]], steps
                 ) -> tuple[list[ImportedConversation], dict[Path, list[ImportedConversation]], int]:
    """For a source kept as a file a session: the conversations of the files
    ``changed`` keeps (those that changed since they were last read whole);
    the files read whole, each with its conversations; how many files were
    passed over. ``steps(what, total)``: where progress goes (home/progress.py's)."""
    reader = _reader(source)
    found, whole = [], {}
    files = reader.session_files(Path(path))
    to_read = changed(files)
    with steps("reading sessions", len(to_read)) as advance:
        for file, conversations in zip(to_read, _sessions(reader, to_read)):
            advance()
            found += conversations
            if not any(c.skipped for c in conversations):
                whole[file] = conversations
    return found, whole, len(files) - len(to_read)


def _sessions(reader, files: list[Path]):
    """Each file's conversations, as they are read; many files are read by
    worker processes (reading is half of an import)."""
    if len(files) < PARALLEL_FROM:
        yield from map(reader.session, files)
        return
    from ..pool import workers

    pool = workers()
    try:
        yield from pool.map(reader.session, files, chunksize=16)
    finally:  # Ctrl-C or a failure: what has not started never will
        pool.shutdown(cancel_futures=True)


def keeps_no_ids(source: str) -> bool:
    """Whether ``source`` keeps neither message ids nor times (shell-gpt): its
    conversations go through ``continue_stored`` before they are written."""
    return getattr(_reader(source), "KEEPS_NO_IDS", False)


def continue_stored(imported: ImportedConversation, stored: Callable[[str], list | None]) -> None:
    """Fit a conversation from a source without ids or times to what was
    imported of it before (``stored``: a conv id's turns, None when there is
    no such conversation). The turns the stored ones end with are matched by
    role and text where the source's list begins (a source that drops its
    oldest messages begins later than the store), so only the turns after
    them are kept, dated after the last stored one. A chat begun afresh under
    the same name (shell-gpt's ``temp``) matches nothing: it becomes a
    conversation of its own, named by its first question too."""
    chat, said = imported.source_id, [t for t in imported.turns if t.role != "system"]
    first = hashlib.sha256(said[0].content.encode()).hexdigest()[:12] if said else ""
    for source_id in (chat, f"{chat}#{first}", f"{chat}#{first}#{imported.created}"):
        imported.source_id = source_id
        before = stored(conversation_id(imported))
        if before is None:
            return
        known = _matched(before, said)
        if known is not None:
            new = said[known:]
            last = parse_time(before[-1].created)
            for turn in new:
                if parse_time(turn.created) <= last:
                    turn.created = iso(last + timedelta(milliseconds=1))
                last = parse_time(turn.created)
            start = len(before)  # turn names stay apart from the stored ones'
            for turn in new:
                turn.source_id, start = f"{turn.source_id}@{start}", start + 1
            imported.turns = new
            return
    imported.turns = []  # matched nothing even under its last name: nothing to add


def _matched(before: list, said: list[ImportedTurn]) -> int | None:
    """How many of ``said`` the stored turns ``before`` end with (the most), None if none do."""
    stored = [(t.role, t.content.strip()) for t in before if t.role != "system"]
    source = [(t.role, t.content.strip()) for t in said]
    for count in range(min(len(stored), len(source)), 0, -1):
        if stored[-count:] == source[:count]:
            return count
    return None


def _reader(source: str):
    module = READERS.get(source)
    if module is None:
        raise UsageError(f"unknown import source {source!r}", f"Use one of: {', '.join(sorted([*READERS, PROJECT]))}")
    return importlib.import_module(module)


def conversation_id(imported: ImportedConversation) -> str:
    """A conv id that depends only on the source and its id, so a second
    import of the same conversation finds the first one."""
    digest = hashlib.sha256(f"{imported.source}:{imported.source_id}".encode()).digest()
    return _token(digest, ids.TOKEN_LENGTH)


def turn_name(turn: ImportedTurn, index: int) -> str:
    """A turn name (``YYYYMMDD-HHMMSS.mmm-RAND-role``) whose time is the turn's
    and whose random part comes from its source id and position, so it is the
    same at every import."""
    at = turn.created
    # conv's own form (iso()), as readers leave it: cut, not parsed
    if len(at) == 24 and at[10] == "T" and at[23] == "Z":
        stamp = f"{at[0:4]}{at[5:7]}{at[8:10]}-{at[11:13]}{at[14:16]}{at[17:19]}.{at[20:23]}"
    else:
        moment = parse_time(at)
        stamp = moment.strftime("%Y%m%d-%H%M%S.") + f"{moment.microsecond // 1000:03d}"
    digest = hashlib.sha256(f"{turn.source_id}/{index}".encode()).digest()
    return f"{stamp}-{_token(digest, 4)}-{turn.role}"


def _token(digest: bytes, length: int) -> str:
    number = int.from_bytes(digest, "big")
    return "".join(ids.ALPHABET[(number >> (5 * i)) & 31] for i in range(length))


# -- helpers for the readers -------------------------------------------------------


def parse_time(value: str) -> datetime:
    """An ISO time as an aware UTC datetime (naive times are UTC: llm wrote
    ``datetime.utcnow()`` in early versions)."""
    moment = datetime.fromisoformat(value.strip().replace(" ", "T", 1))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def from_epoch(seconds: float) -> str:
    return iso(datetime.fromtimestamp(seconds, timezone.utc))


def strictly_increasing(turns: list[ImportedTurn]) -> list[ImportedTurn]:
    """Move each turn that is not later than the one before it to 1 ms after
    it. Only earlier turns decide, so two branches sharing a prefix get the
    same times (and names) for it."""
    previous = None
    for turn in turns:
        moment = parse_time(turn.created)
        if previous is not None and moment <= previous:
            moment = previous + timedelta(milliseconds=1)
        turn.created = iso(moment)
        previous = parse_time(turn.created)  # at conv's millisecond precision
    return turns


def files_at(path: Path, pattern: str, hint: str) -> list[Path]:
    """A source's files at ``path``: the one named, or those in the folder
    that ``pattern`` matches (dot files left out); one line when neither is there."""
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(p for p in path.glob(pattern) if p.is_file() and not p.name.startswith("."))
    raise UsageError(f"no such file or folder: {path}", hint)


def parsed_file(file: Path, parse: Callable[[bytes], object], hint: str):
    """``file`` through ``parse``: None when it does not parse (``parse`` raises
    ValueError: a file half-written); one line to the user when it cannot be read."""
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {file}: {exc.strerror}", hint) from None
    try:
        return parse(raw)
    except ValueError:
        return None


def dated_by_file(turns: list[ImportedTurn], file: Path) -> list[ImportedTurn]:
    """For a source that keeps no times: the last turn at the file's last change, each earlier 1 ms before."""
    changed = file.stat().st_mtime
    for back, turn in enumerate(reversed(turns)):
        turn.created = from_epoch(changed - back / 1000)
    return turns


def unreadable(source: str, file: Path, why: str) -> ImportedConversation:
    """A file of ``source`` that could not be read: nothing to import, said to the user."""
    return ImportedConversation(source=source, source_id=file.name, title="", created="", model=None,
                                skipped=[f"{file}: {why}"])


def first_question(turns: list[ImportedTurn]) -> str:
    """A title for a conversation whose source has none: made from its first question."""
    return title_from(next((t.content for t in turns if t.role == "user"), ""))


def shared_prefix(a: list[ImportedTurn], b: list[ImportedTurn]) -> int:
    """How many leading turns two branches have in common (by source id)."""
    count = 0
    for x, y in zip(a, b):
        if x.source_id != y.source_id:
            break
        count += 1
    return count
