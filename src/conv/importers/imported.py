"""What the readers make of other tools' files: conversations and turns in
one in-memory model, before anything is stored (services/imports.py names
and writes them)."""

from ..records import dataclass, field


@dataclass
class ImportedTurn:
    role: str  # "user" | "assistant" | "system"
    content: str
    created: object  # as the reader found it (a datetime, a text, None); after the boundary, conv's ISO time
    model: str | None = None
    usage: dict | None = None  # in the classes of format/usage.py, when known
    source_id: str = ""  # stable id of this message in the source
    files: list = field(default_factory=list)  # (name, bytes) of each file sent with it
    kept: list = field(default_factory=list)  # (name, bytes) kept beside it, never sent (a tool's whole output)
    thinking: str | None = None  # the model's thinking: kept, never sent
    name: str | None = None  # the turn's own name, when the source is conv itself (else made by turn_name)
    extra: dict = field(default_factory=dict)  # more of conv's own turn fields (conv's export: parent, finish…)
    injected: list = field(default_factory=list)  # [{kind, text}]: what the tool put in the session around this
    # turn that nobody typed and no model said (a local command and its output, a compaction's summary): kept
    edits: list = field(default_factory=list)  # what its tool calls changed (format/edits.py), in order
    commands: list = field(default_factory=list)  # the shell commands its tool calls ran


@dataclass
class ImportedConversation:
    source: str  # "llm" | "chatgpt"…
    source_id: str  # the source's id; a ChatGPT side branch is "<conv id>#<leaf node id>"
    title: str
    created: object  # as for ImportedTurn.created
    model: str | None
    turns: list[ImportedTurn] = field(default_factory=list)
    fork_of: str | None = None  # source_id of the conversation this branch forks from
    fork_at: int | None = None  # number of leading turns shared with it
    origin: dict = field(default_factory=dict)  # where it happened, as the source knew it (cwd, git_branch)
    skipped: list = field(default_factory=list)  # what of the source could not be read, said to the user
    conv_id: str | None = None  # the id it keeps (conv's own export), else conversation_id makes one
    meta: dict = field(default_factory=dict)  # more of conv's own fields (conv's export: tags, status, summary…)
    undated: bool = False  # no time of its own: dated by its file's last change (or, once stored, by its start)


@dataclass
class Read:
    """What an import read: the conversations, what could not be read (one line each), the files read whole."""

    conversations: list
    said: list = field(default_factory=list)
    whole: dict = field(default_factory=dict)  # file -> its conversations, for files read with nothing left out
    stamps: dict = field(default_factory=dict)  # file -> its size and time before it was read (what was read is
    # that or more: a file that grew meanwhile differs next time, and is read again)
    unchanged: int = 0  # files passed over: as they were when last imported
    files: int = 0  # files looked at
