"""Conversations and turns as files (docs/format.md): which keys they hold and
how they map to frontmatter documents (frontmatter.py).

FORMAT_VERSION history (each conversation.md says which it was written in):
  1 — conversation.md + one file per turn, sharded by id (2026-11).
  2 — an imported answer keeps what its tool calls did (``edits``,
      ``commands``) and its usage in classes (``cache_write_tokens``,
      ``cache_read_tokens``, ``reasoning_tokens``; ``prompt_tokens`` no longer
      holds the cache's); a list of mappings is one line of JSON (2026-12).
A conversation written in a later version is refused with a clear message
(a conv this old may misread it, and writing it back could lose what it does
not know); one without the key, or of an older version, is read as it is,
upgraded where it is read: a format-1 import's usage says it was summed
(usage.read_usage), and the next import of a session still on disk writes
its turns again in classes.
"""

from __future__ import annotations

from datetime import datetime, timezone

from ..errors import StoreError
from ..records import dataclass, field
from . import edits
from .frontmatter import Document, dump_document, emittable, new_mapping, parse_document
from .usage import read_usage

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of every follow-up): PEP 781's idiom
if TYPE_CHECKING:
    from typing import Any

FORMAT_VERSION = 2
META_FILE = "conversation.md"  # a conversation's own file in its folder, beside one file a turn

ROLES = ("user", "assistant", "system")
STATUSES = ("active", "paused", "done")


def now_iso() -> str:
    return iso(datetime.now(timezone.utc))


def iso(moment: datetime) -> str:
    moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def seconds_since(iso_time: str) -> float | None:
    """How long ago ``iso_time`` was; None when it is no time (a hand edit)."""
    try:
        moment = datetime.fromisoformat(iso_time.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    moment = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    return (datetime.now(timezone.utc) - moment).total_seconds()


def as_time(value: Any) -> str:
    """A time read from YAML as the canonical string (hand edits may unquote it)."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return iso(value)
    return "" if value is None else str(value)


def _plain(value: Any) -> Any:
    """ruamel's round-trip types as plain Python (for JSON and comparisons)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, datetime):
        return as_time(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return str(value)


def _update(meta: Any, values: dict) -> None:
    """Set keys in place (keeping the others, their order and comments); drop Nones."""
    for key, value in values.items():
        if value is None or value == [] or value == {}:
            if key in meta:
                del meta[key]
        elif meta.get(key) != value:
            meta[key] = emittable(value) if type(meta) is not dict else value


@dataclass
class Turn:
    """One message of a conversation, stored as ``<name>.md``."""

    name: str
    role: str
    content: str
    created: str = ""
    parent: str | None = None
    model: str | None = None
    provider: str | None = None
    usage: dict | None = None
    finish: str | None = None  # stop, length, interrupted, error; None while pending
    error: str | None = None
    replaces: str | None = None  # for a retried answer: the answer it superseded
    hint: str | None = None  # for a retried answer: what the user said was wrong
    feedback: str | None = None  # for a retried answer: "negative", the user's verdict on the one it replaces
    edited: str | None = None  # when a person last changed the text (conv edit)
    options: dict | None = None  # for an answer: the model options it was asked with (-o temperature 0.2…)
    files: list[dict] | None = None  # files sent with it (-f): [{name, file, type, bytes}], each stored as ``file``
    thinking: str | None = None  # for an imported answer: the model's thinking, kept, never sent
    injected: list[dict] | None = None  # for an imported turn: [{kind, text}] the tool added, no one typed or said
    edits: list[dict] | None = None  # for an imported answer: the files its tool calls changed (format/edits.py)
    commands: list[dict] | None = None  # for an imported answer: the shell commands its tool calls ran
    meta: Any = None  # the parsed mapping, so a rewrite keeps hand-added keys
    # file -> bytes of ``files``, to be stored with the turn (not read back)
    attached: dict = field(default_factory=dict)

    FIELDS = ("role", "created", "parent", "model", "provider", "usage", "finish", "error", "replaces", "hint",
              "feedback", "edited", "options", "files", "thinking", "injected", "edits", "commands")

    @classmethod
    def from_text(cls, name: str, text: str, where: str = "") -> "Turn":
        where = where or f"turn {name}"
        doc = parse_document(text, where)
        m = doc.meta
        role = str(m.get("role", ""))
        if role not in ROLES:
            raise StoreError(f"{where}: role must be one of {', '.join(ROLES)}")
        usage, options, files = m.get("usage"), m.get("options"), m.get("files")
        return cls(
            name=name,
            role=role,
            content=doc.body,
            created=as_time(m.get("created")),
            parent=_str_or_none(m.get("parent")),
            model=_str_or_none(m.get("model")),
            provider=_str_or_none(m.get("provider")),
            usage=read_usage(usage, _str_or_none(m.get("provider"))),
            finish=_str_or_none(m.get("finish")),
            error=_str_or_none(m.get("error")),
            replaces=_str_or_none(m.get("replaces")),
            hint=_str_or_none(m.get("hint")),
            feedback=_str_or_none(m.get("feedback")),
            edited=_str_or_none(as_time(m.get("edited"))),
            options=_plain(options) if isinstance(options, dict) else None,
            thinking=_str_or_none(m.get("thinking")),
            files=([_plain(f) for f in files if isinstance(f, dict) and f.get("file")]
                   if isinstance(files, list) else None),
            injected=_injected(m.get("injected")),
            edits=edits.edits_of(m.get("edits")),
            commands=edits.commands_of(m.get("commands")),
            meta=m,
        )

    def to_text(self) -> str:
        meta = self.meta if self.meta is not None else new_mapping()
        _update(meta, {f: getattr(self, f) for f in self.FIELDS})
        return dump_document(Document(meta, self.content))

    def to_dict(self) -> dict:
        return {"name": self.name, "content": self.content} | {
            f: getattr(self, f) for f in self.FIELDS if getattr(self, f) is not None
        }


def _injected(value: Any) -> list[dict] | None:
    """A turn's ``injected`` as read: the notes that have a kind and a text (a hand edit may have left others)."""
    return [{"kind": str(n["kind"]), "text": str(n["text"])} for n in value if isinstance(n, dict) and None not in (
        n.get("kind"), n.get("text"))] or None if isinstance(value, list) else None


@dataclass
class Conversation:
    """A conversation's metadata (``conversation.md``) and its turns in order."""

    id: str
    created: str
    title: str = ""
    model: str | None = None
    provider: str | None = None
    agent: str | None = None
    tags: list[str] = field(default_factory=list)
    status: str = "active"
    forked_from: dict | None = None
    summary: str | None = None
    # {source, id, and cwd, git_branch when known} for those brought in by conv import
    imported_from: dict | None = None
    system_hash: str | None = None  # the agent's system prompt (agents.prompt_hash) the turns were asked under
    context_summary: dict | None = None  # {through: turn name, text, model}: the older turns, summarized by the model
    project: dict | None = None  # {root, remote, branch, commit}: the git work tree it was started in
    notes: str = ""  # the body of conversation.md: free text for people
    turns: list[Turn] = field(default_factory=list)
    unreadable: dict[str, str] = field(default_factory=dict)  # turn file -> why it could not be read (left out)
    meta: Any = None

    FIELDS = ("id", "title", "created", "model", "provider", "agent", "tags", "status", "forked_from", "summary",
              "imported_from", "system_hash", "context_summary", "project")

    @classmethod
    def from_text(cls, text: str, where: str = "conversation.md") -> "Conversation":
        doc = parse_document(text, where)
        m = doc.meta
        conv_id = _str_or_none(m.get("id"))
        if not conv_id:
            raise StoreError(f"{where}: frontmatter has no id")
        written = m.get("format")
        if isinstance(written, int) and not isinstance(written, bool) and written > FORMAT_VERSION:
            raise StoreError(f"{where} was written by a newer conv (format {written}; this one reads up to "
                             f"{FORMAT_VERSION}): left as it is", "Upgrade conv to read and change it")
        tags = m.get("tags") or []
        return cls(
            id=conv_id,
            created=as_time(m.get("created")),
            title=str(m.get("title") or ""),
            model=_str_or_none(m.get("model")),
            provider=_str_or_none(m.get("provider")),
            agent=_str_or_none(m.get("agent")),
            tags=[str(t) for t in tags] if isinstance(tags, list) else [str(tags)],
            status=str(m.get("status") or "active"),
            forked_from=_plain(m.get("forked_from")) if isinstance(m.get("forked_from"), dict) else None,
            summary=_str_or_none(m.get("summary")),
            imported_from=_plain(m.get("imported_from")) if isinstance(m.get("imported_from"), dict) else None,
            system_hash=_str_or_none(m.get("system_hash")),
            context_summary=_plain(m.get("context_summary")) if isinstance(m.get("context_summary"), dict) else None,
            project=_plain(m.get("project")) if isinstance(m.get("project"), dict) else None,
            notes=doc.body,
            meta=m,
        )

    def to_text(self) -> str:
        meta = self.meta
        if meta is None:
            meta = new_mapping()
            meta["format"] = FORMAT_VERSION
        values = {f: getattr(self, f) for f in self.FIELDS}
        values["status"] = None if self.status == "active" and "status" not in meta else self.status
        _update(meta, values)
        return dump_document(Document(meta, self.notes))

    @property
    def going_on_with(self) -> str | None:
        """Derived, never stored: the model of its last answer (the one a
        follow-up goes on with), else the one it was started with."""
        return going_on_with(self.turns, self.model)

    @property
    def updated(self) -> str:
        """Derived, never stored: the newest turn's time (or creation)."""
        return max([self.created] + [t.created for t in self.turns])

    def to_dict(self, with_turns: bool = True) -> dict:
        out = {f: getattr(self, f) for f in self.FIELDS if getattr(self, f) not in (None, "", [])}
        out["notes"] = self.notes
        out["updated"] = self.updated
        out["turn_count"] = len(self.turns)
        if with_turns:
            out["turns"] = [t.to_dict() for t in self.turns]
            if self.unreadable:
                out["unreadable"] = dict(self.unreadable)
        return out


def _str_or_none(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def order_turns(turns: list[Turn]) -> list[Turn]:
    """Transcript order: by time (names sort by time), each answer right after its question: when several askers
    interleave (Q1, Q2, A1, A2), an answer's ``parent`` pulls it back beside the question it answers."""
    # within one millisecond a system prompt comes before its question, and that before its answer
    rank = {"system": 0, "user": 1, "assistant": 2}
    by_time = sorted(turns, key=lambda t: (t.name[:19], rank.get(t.role, 3), t.name))
    questions = {t.name for t in by_time if t.role == "user"}
    replies: dict[str, list[Turn]] = {}
    for turn in by_time:
        if turn.role == "assistant" and turn.parent in questions:
            replies.setdefault(turn.parent, []).append(turn)
    out = []
    for turn in by_time:
        if turn.role == "assistant" and turn.parent in questions:
            continue
        out.append(turn)
        out.extend(replies.get(turn.name, ()))
    return out


def going_on_with(turns, started_with: str | None) -> str | None:
    """The model of the last answer among ``turns`` (with a name, a role, a model), else ``started_with``."""
    answered = max((t for t in turns if t.role == "assistant" and t.model), key=lambda t: t.name, default=None)
    return answered.model if answered else started_with
