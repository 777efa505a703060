"""Reader for aider's chat history, ``.aider.chat.history.md`` (read from
aider 0.86.2), which aider appends to as it goes:

- ``# aider chat started at 2026-11-28 19:34:14`` (the local time) begins a
  chat, one an aider process: a conversation, known by its file and start;
- lines ``#### `` are what a person typed (a run of them one question; one
  that is a command, ``/tokens``, ``/undo``, is kept with the turn before it,
  ``injected``, never a question: ``/ask X`` is logged again as ``#### X``);
- lines ``> `` are aider's own output (its banner and model, edits applied,
  commits, tokens and cost): kept with the turn they follow (injected), its
  ``Tokens: 2.5k sent, 1.2k cache write, 3k cache hit, 34 received. Cost:
  $0.01 message`` read as the answer's usage too (to the precision aider
  prints: 2.5k is 2,500; sent counts the cache classes in, taken out); a
  multi-line message of aider's marks only its first line, so unmarked lines
  before the first question and straight after a ``> Commit`` are aider's too;
- the other lines are the model's answer, its thinking between aider's
  ``<thinking-content-…>`` tags, its edits as SEARCH/REPLACE blocks under
  the file's name (kept as the answer's ``edits``; one aider does not say
  ``Applied edit to FILE`` for, marked failed).

aider keeps no time but the chat's start and no ids: the turns are dated from
the start, and known by their place in the chat, which only grows at its end."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

from ...errors import UsageError
from ...format.usage import added
from ...importers import ImportedConversation
from ...importers.agent import AgentTurns
from ...importers.boundary import Loaded, Reader
from ...importers.files import raw
from ...importers.shape import Record, Text
from ...importers.tool_calls import search_replace
from . import HISTORY, SOURCE, work_tree

HINT = f"aider writes {HISTORY} at the top of each git work tree it ran in"
STARTED = re.compile(r"^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)[ \t]*$", re.M)
THINKING = re.compile(r"<thinking-content-[0-9a-f]+>(.*?)</thinking-content-[0-9a-f]+>", re.S)
MODEL = re.compile(r"^Model: (\S+)")
ANSWERED = ("/ask ", "/code ", "/architect ", "/context ")  # commands whose words aider logs again as the question
# an edit of aider's "diff" format: the file's name on its own line, then a fence holding SEARCH/REPLACE blocks
EDITED = re.compile(r"^([^\n`]+?)\n```[^\n]*\n((?:<{7} SEARCH\n.*?^>{7} REPLACE\n)+)```", re.S | re.M)
APPLIED = re.compile(r"^Applied edit to (.+)$", re.M)
_COUNT = r"(\d+(?:\.\d+)?k?)"  # aider's format_tokens: 34, 2.5k, 12k
USED = re.compile(rf"^Tokens: {_COUNT} sent(?:, {_COUNT} cache write)?(?:, {_COUNT} cache hit)?, {_COUNT} received\."
                  r"(?:\s+Cost: \$(\d+(?:\.\d+)?) message)?", re.M)


class Aider(Reader):
    hint = HINT
    record = Record({"started": Text, "text": Text}, required=("started", "text"))

    def default_path(self) -> Path:
        return work_tree()

    def files(self, path: Path) -> list[Path]:
        """The history file named, or those of the folder, its sub-folders and theirs (a folder of work trees)."""
        if path.is_file():
            return [path]
        if not path.is_dir():
            raise UsageError(f"no aider chat history at {path}", HINT)
        return sorted({p.resolve() for pattern in (HISTORY, f"*/{HISTORY}", f"*/*/{HISTORY}")
                       for p in path.glob(pattern) if p.is_file()})

    def load(self, file: Path) -> Loaded:
        text = raw(file).decode("utf-8", "replace")
        starts = list(STARTED.finditer(text))
        return Loaded([{"started": m[1], "text": text[m.end():starts[n + 1].start() if n + 1 < len(starts) else None]}
                       for n, m in enumerate(starts)])

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        out, seen = [], {}
        for chat in loaded.records:
            start = _local(chat["started"])
            key = chat["started"]
            seen[key] = seen.get(key, 0) + 1  # two chats begun in one second: each its own
            turns, model = _turns(chat["text"])
            if not any(t.role == "user" for t in turns):
                continue
            for turn in turns:
                turn.model = model if turn.role == "assistant" else None
            out.append(ImportedConversation(
                source=self.source, source_id=f"{file.resolve()}#{key}" + (f"#{seen[key]}" if seen[key] > 1 else ""),
                title="", created=start.isoformat() if start else None, model=model, turns=turns,
                origin={"cwd": str(file.resolve().parent)}))
        return out


READER = Aider(SOURCE)


def _local(text: str) -> datetime | None:
    """A chat's start in the machine's own zone, as aider wrote it (None: no time, or none that is a time in UTC
    too: the last second of 9999 west of Greenwich is in year 10000)."""
    try:
        found = datetime.strptime(text, "%Y-%m-%d %H:%M:%S").astimezone()
        found.astimezone(timezone.utc)
    except (ValueError, OverflowError, OSError):
        return None
    return found


def _turns(text: str) -> tuple[list, str | None]:
    """The turns of one chat's lines, and the model its banner names."""
    turns, model = AgentTurns(), None
    blocks: list[tuple[str, list[str]]] = []  # ("user" | "aider" | "model", lines), in order
    asked = after_commit = False
    for line in text.split("\n"):
        line = line.rstrip("\r")
        line = line[:-2] if line.endswith("  ") else line  # Markdown's line break, as aider ends its lines
        if line.startswith("#### ") or line.rstrip() == "####":
            kind, body, asked = "user", line[5:], True
        elif line.startswith("> ") or line == ">":
            kind, body = "aider", line[2:]
            model = model or ((found := MODEL.match(body)) and found[1])
        elif not asked or (line and after_commit):
            kind, body = "aider", line  # a line of a multi-line message of aider's (see above)
        else:
            kind, body = "model", line
        after_commit = kind == "aider" and (body.startswith("Commit ") or (after_commit and bool(line)))
        if blocks and blocks[-1][0] == kind:
            blocks[-1][1].append(body)
        else:
            blocks.append((kind, [body]))
    n = 0
    for kind, lines in blocks:
        said = "\n".join(lines).strip("\n")
        if not said.strip():
            continue
        n += 1
        if kind == "user" and said.startswith("/"):
            if not said.startswith(ANSWERED):
                turns.injected("command", said)
        elif kind == "user":
            turns.typed(said, None, str(n))
        elif kind == "aider":
            turns.injected("aider", said)
            _applied(turns, set(APPLIED.findall(said)))
            for report in USED.finditer(said):
                _used(turns, report)
        else:
            for thought in THINKING.findall(said):
                turns.thought(thought.strip(), None, str(n))
            answer = THINKING.sub("", said).strip()
            turns.said(answer, None, str(n))
            _edited(turns, answer, str(n))
    return turns.done(), model or None


def _edited(turns: AgentTurns, answer: str, source_id: str) -> None:
    """The SEARCH/REPLACE blocks of an answer as its edits (an empty SEARCH: a file written whole), not yet applied."""
    if not turns.turns or turns.turns[-1].role != "assistant":
        return
    for found in EDITED.finditer(answer):
        path = found[1].strip()
        for old, new in search_replace(found[2]):
            edit = {"kind": "write", "path": path, "after": new} if not old.strip() else \
                {"kind": "replace", "path": path, "before": old, "after": new}
            turns.turns[-1].edits.append({**edit, "tool": "aider", "pending": True})


def _used(turns: AgentTurns, found: "re.Match | None") -> None:
    """aider's tokens and cost of the answer just given, added to its usage (aider reports each call it
    makes, and starts its counts again after each report)."""
    answer = turns.turns[-1] if turns.turns else None
    if found is None or answer is None or answer.role != "assistant":
        return
    sent, write, hit, received = (_tokens(found[n]) for n in range(1, 5))
    usage = {"prompt_tokens": max(sent - write - hit, 0), "cache_write_tokens": write, "cache_read_tokens": hit,
             "completion_tokens": received}
    usage = {k: v for k, v in usage.items() if v or k in ("prompt_tokens", "completion_tokens")}
    if found[5] is not None:
        usage["cost"] = float(found[5])
    answer.usage = added(answer.usage, usage)


def _tokens(text: str | None) -> int:
    if not text:
        return 0
    return round(float(text[:-1]) * 1000) if text.endswith("k") else int(text)


def _applied(turns: AgentTurns, applied: set) -> None:
    """aider's word on the answer's edits: those of files it says it applied edits to did happen, the others not."""
    answer = next((t for t in reversed(turns.turns) if t.role == "assistant"), None)
    for edit in answer.edits if answer is not None else ():
        if edit.pop("pending", None) and edit["path"] not in applied:
            edit["failed"] = True
