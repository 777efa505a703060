"""Reader for Cline's sessions, both generations (read from Cline's own
code, cline/cline; the CLI 3.0.65 run here writes the first):

- the session store of the CLI 3 and the extension 4
  (``sessions/<id>/``): ``<id>.json`` the manifest (cwd, title), and
  ``<id>.messages.json`` the whole transcript, written again after each turn:
  ``{messages: [{id, role, content: [blocks], ts (ms), modelInfo, metrics}]}``,
  a person's text wrapped in ``<user_input mode="act">``, tool calls
  (``editor``, ``apply_patch``, ``run_commands``…) as ``tool_use`` blocks and
  their results as a user message's ``tool_result`` blocks, each model call's
  tokens in ``metrics`` (its input holding the cache's). A sub-agent's
  transcript (``<agent id>.messages.json`` beside it) counts with the answer
  it worked for: its tokens and its edits.
- an older extension's task folders (``tasks/<id>/``, in each editor's
  globalStorage, whether or not its taskHistory.json still lists them),
  made into such messages by tasks.py: Anthropic's messages (the task in
  ``<task>``, a reply in ``<feedback>``, Cline's own context in
  ``<environment_details>``, tool calls as XML in the text or as tool_use
  blocks: write_to_file, replace_in_file with SEARCH/REPLACE blocks,
  execute_command)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ...errors import UsageError
from ...importers import ImportedConversation
from ...importers.agent import AgentTurns
from ...importers.boundary import Loaded, Reader
from ...importers.files import Unreadable, json_document
from ...importers.shape import Anything, Count, Flag, ListOf, Maybe, Number, OneOf, Record, Tagged, Text, Time
from ...importers.tool_calls import Tools, blocks, patch, shell, write
from . import SOURCE, sessions, task_folders
from .tasks import HISTORY, load_task

HINT = "Cline keeps its sessions in ~/.cline/data/sessions (an older extension: tasks/ in VS Code's globalStorage)"
MESSAGES = ".messages.json"
_BLOCK = Record({"type": Text, "text": Text, "thinking": Text, "id": Text, "name": Text, "input": Anything,
                 "tool_use_id": Text, "content": Anything, "is_error": Flag, "path": Text}, required=("type",))
_METRICS = Record({**dict.fromkeys(("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"),
                                   Maybe(Count)), "cost": Maybe(Number),
                   "tokens": Record(dict.fromkeys(("prompt", "completion", "cached"), Maybe(Count)))})
_MESSAGE = Record({"id": Text, "role": Text, "content": OneOf(Text, ListOf(_BLOCK, drop=True), what="text or blocks"),
                   "ts": Time, "modelInfo": Record({"id": Text, "modelId": Text}), "metrics": _METRICS,
                   "aside": Flag}, required=("role", "content"))
_MANIFEST = Record({"session_id": Text, "cwd": Text, "workspace_root": Text, "started_at": Time, "model": Text,
                    "metadata": Record({"title": Text})})
_USER_INPUT = re.compile(r"<user_input\b[^>]*>(.*?)</user_input>", re.S)
_NOTICE = re.compile(r"<mode_notice>.*?</mode_notice>\s*", re.S)
_TAGGED = re.compile(r"<(task|feedback|answer|user_message)>\s*(.*?)\s*</\1>", re.S)
_LEGACY_CONTEXT = re.compile(r"\s*<environment_details>.*?</environment_details>\s*", re.S)
_CWD = re.compile(r"# Current Working Directory \((/[^)\n]*)\)")


def _editor(args) -> list[dict]:
    """Cline's editor: with old_text a span replaced, with insert_line text put in, else the file written whole."""
    if not isinstance(args, dict):
        return []
    if isinstance(args.get("old_text"), str):
        return [{"kind": "replace", "path": args.get("path"), "before": args["old_text"],
                 "after": args.get("new_text")}]
    kind = "replace" if isinstance(args.get("insert_line"), int) else "write"
    return [{"kind": kind, "path": args.get("path"), "after": args.get("new_text")}]


def _run_commands(args) -> list[str]:
    """run_commands' lines: text, or {command, args} each."""
    found = args.get("commands") if isinstance(args, dict) else args
    found = [found] if isinstance(found, (str, dict)) else found if isinstance(found, list) else []
    return [c if isinstance(c, str) else " ".join([c.get("command", ""), *map(str, c.get("args") or ())]).strip()
            for c in found if isinstance(c, (str, dict))]


TOOLS = Tools({"editor": _editor, "apply_patch": patch("input"), "write_to_file": write("path", "content"),
               "replace_in_file": blocks("path", "diff")},
              {"run_commands": _run_commands, "execute_command": shell("command")})


class Cline(Reader):
    hint = HINT
    record = Tagged("kind", {"manifest": _MANIFEST, "message": _MESSAGE})

    def default_path(self) -> Path:
        return sessions()

    def files(self, path: Path) -> list[Path]:
        """A session's transcript (its folder, or a folder of them: the store, an older extension's tasks); at
        the store's own place, the older extension's tasks too."""
        if path.is_file():
            return [path]
        own = path == self.default_path()
        tasks = [f for folder in task_folders() if folder.is_dir() for f in _sessions_in(folder)] if own else []
        if not path.is_dir() and not tasks:
            raise UsageError(f"no Cline sessions at {path}", HINT)
        return sorted([*(_sessions_in(path) if path.is_dir() else []), *tasks])

    def load(self, file: Path) -> Loaded:
        if file.name == HISTORY:
            messages, began = load_task(file)
            return Loaded(messages, {"legacy": True, "began": began})
        if not file.name.endswith(MESSAGES):
            raise Unreadable(f"not a Cline session's transcript (*{MESSAGES})")
        records = [{"kind": "manifest", **m} for m in _document(file.with_name(file.name[:-len(MESSAGES)] + ".json"))]
        records += _messages(file)
        for agent in sorted(file.parent.glob(f"*{MESSAGES}")):
            if agent != file:
                records += [{**m, "aside": True} if isinstance(m, dict) else m for m in _messages(agent)]
        return Loaded(records)

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        manifest = next((r for r in loaded.records if r["kind"] == "manifest"), None) or {}
        messages = [r for r in loaded.records if r["kind"] == "message"]
        legacy = bool(loaded.head.get("legacy"))
        turns = _turns([m for m in messages if not m["aside"]], [m for m in messages if m["aside"]], legacy)
        if not any(t.role == "user" for t in turns):
            return []
        cwd = manifest.get("cwd") or manifest.get("workspace_root") or (_legacy_cwd(messages) if legacy else None)
        return [ImportedConversation(
            source=self.source, source_id=manifest.get("session_id") or file.parent.name,
            title=(manifest.get("metadata") or {}).get("title") or "",
            created=manifest.get("started_at") or loaded.head.get("began"),
            model=next((t.model for t in reversed(turns) if t.model), None), turns=turns,
            origin={"cwd": cwd} if cwd else {})]


READER = Cline(SOURCE)


def _sessions_in(folder: Path) -> list[Path]:
    """The transcripts under ``folder``: a session's own (its folder named as it), a task's history."""
    found = []
    for candidate in (folder, *sorted(p for p in folder.iterdir() if p.is_dir())):
        own = candidate / f"{candidate.name}{MESSAGES}"
        if own.is_file():
            found.append(own)
        elif (candidate / HISTORY).is_file():
            found.append(candidate / HISTORY)
    return found


def _document(file: Path) -> list[dict]:
    """A session's manifest ([] when there is none: a sub-agent's, or one being written)."""
    try:
        found = json_document(file)
    except Unreadable:
        return []
    return [found] if isinstance(found, dict) else []


def _messages(file: Path) -> list:
    found = json_document(file)
    messages = found.get("messages") if isinstance(found, dict) else None
    if not isinstance(messages, list):
        raise Unreadable("not a Cline session's transcript (an object with its messages)")
    return [{"kind": "message", **m} if isinstance(m, dict) else m for m in messages]


def _turns(messages: list[dict], aside: list[dict], legacy: bool) -> list:
    turns = AgentTurns(TOOLS)
    for m in messages:
        time, source_id = m["ts"], m["id"] or ""
        blocks_ = [{"type": "text", "text": m["content"]}] if isinstance(m["content"], str) else m["content"]
        if m["role"] == "user":
            _asked(turns, blocks_, time, source_id, legacy)
        elif m["role"] == "assistant":
            _answered(turns, m, blocks_, time, source_id)
    for m in aside:  # a sub-agent's: with the answer under way when it ran
        answer = turns.answer_at(m["ts"])
        if answer is None or m["role"] != "assistant":
            continue
        if m["metrics"]:
            turns.used_aside(_usage(m["metrics"]), f"aside/{m['id']}", m["ts"])
        for b in m["content"] if isinstance(m["content"], list) else ():
            if b["type"] == "tool_use":
                turns.called(b["id"] or "", b["name"] or "tool", b["input"], m["ts"], m["id"] or "", turn=answer)
    return turns.done()


def _asked(turns: AgentTurns, blocks_: list[dict], time, source_id: str, legacy: bool) -> None:
    """A user message: what a person typed (unwrapped), tools' results going back, Cline's own context."""
    typed = []
    for b in blocks_:
        if b["type"] == "tool_result":
            text, failed = _result(b["content"])
            turns.result(b["tool_use_id"] or "", text, bool(b["is_error"]) or failed, time, source_id)
        elif b["type"] == "text" and b["text"]:
            text = b["text"]
            if legacy:
                text, context = _LEGACY_CONTEXT.sub("\n", text).strip(), _LEGACY_CONTEXT.findall(text)
                for found in context:
                    turns.injected("context", found.strip())
                tagged = _TAGGED.findall(text)
                if tagged:
                    typed += [said for _, said in tagged]
                    continue
            typed.append(_unwrapped(text))
        elif b["type"] == "file" and b["path"]:
            content = b["content"] if isinstance(b["content"], str) else ""
            turns.injected("referenced files", f"{b['path']}\n{content}")
    text = "\n\n".join(t for t in typed if t.strip())
    if text.strip():
        turns.typed(text, time, source_id)


def _unwrapped(text: str) -> str:
    """What a person typed, out of Cline's ``<user_input mode=…>`` (and the mode notice before it)."""
    found = _USER_INPUT.search(text)
    return (found[1] if found else _NOTICE.sub("", text)).strip()


def _answered(turns: AgentTurns, m: dict, blocks_: list[dict], time, source_id: str) -> None:
    model = (m["modelInfo"] or {}).get("id") or (m["modelInfo"] or {}).get("modelId")
    if model:
        turns.answered_by(model, time, source_id)
    if m["metrics"]:
        turns.used(_usage(m["metrics"]), source_id or str(time), time, source_id)
    for b in blocks_:
        if b["type"] == "text":
            turns.said(b["text"] or "", time, source_id)
        elif b["type"] == "thinking":
            turns.thought(b["thinking"] or "", time, source_id)
        elif b["type"] == "tool_use":
            turns.called(b["id"] or "", b["name"] or "tool", b["input"], time, source_id)


def _usage(metrics: dict) -> dict:
    """A model call's tokens in conv's classes: Cline's input holds the cache's, read and written (counted apart);
    its own cost, in dollars. An older task's: prompt (holding the cached), completion."""
    legacy = metrics["tokens"]
    if legacy:
        cached = min(legacy["cached"] or 0, legacy["prompt"] or 0)
        out = {"prompt_tokens": (legacy["prompt"] or 0) - cached, "cache_write_tokens": 0, "cache_read_tokens": cached,
               "completion_tokens": legacy["completion"] or 0}
    else:
        read, written = metrics["cacheReadTokens"] or 0, metrics["cacheWriteTokens"] or 0
        out = {"prompt_tokens": max((metrics["inputTokens"] or 0) - read - written, 0),
               "cache_write_tokens": written, "cache_read_tokens": read,
               "completion_tokens": metrics["outputTokens"] or 0}
    return {**out, "cost": float(metrics["cost"])} if metrics["cost"] is not None and metrics["cost"] >= 0 else out


def _result(content) -> tuple[str, bool]:
    """A tool's result and whether it failed: text, blocks of text, or Cline's operation results ({query,
    result, error, success} each, or their JSON text: Cline marks no failed result is_error, it says so there)."""
    if isinstance(content, str):
        found = _json_or_none(content) if content[:1] in "[{" else None
        if found is None:
            return content, False
        content = found
    said, failed = [], False
    for part in content if isinstance(content, list) else [content]:
        if isinstance(part, dict):
            failed = failed or part.get("success") is False or bool(part.get("error"))
            text = part.get("text") if isinstance(part.get("text"), str) else part.get("result") or part.get("error")
            said.append(text if isinstance(text, str) else "")
        elif isinstance(part, str):
            said.append(part)
    return "\n".join(said), failed


def _json_or_none(text: str):
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _legacy_cwd(messages: list[dict]) -> str | None:
    """The folder an older task worked in, as Cline's first context says it."""
    for m in messages:
        for b in m["content"] if isinstance(m["content"], list) else []:
            found = _CWD.search(b["text"] or "") if b["type"] == "text" else None
            if found:
                return found[1].strip()
    return None
