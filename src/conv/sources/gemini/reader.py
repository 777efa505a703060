"""Reader for Gemini CLI's sessions: ``<project>/chats/session-<time>-<id>.jsonl``
under ``~/.gemini/tmp`` (``GEMINI_CLI_HOME`` moves ``~``; the project's folder
holds ``.project_root``, the folder worked in). Read from 0.61.0, whose file
is a log of changes to one conversation, replayed:

- the first line is the session (``sessionId``, ``startTime``…);
- a message (``id``, ``type``: user, gemini, info, error, warning) is added,
  or, when its id is known, written over (a model's message gains its tool
  calls and their results so);
- ``{"$set": {…}}`` changes the session; with ``messages``, the whole list
  (after a compression, a rollback, a resume): the messages it holds that
  are new are added, the others stay as they were;
- ``{"$rewindTo": id}`` goes back to before that message: what comes after
  it is a new line, a fork (the older line stays the conversation).

An older Gemini CLI kept a session as one JSON object with its messages
(``session-….json``): read as the same. Not every user message is what a
person typed: the session's context (``<session_context>``), a
compression's summary (``<state_snapshot>``) and the model's reply to it
(no model named: Gemini CLI's own), a slash command, the info and errors
the CLI showed are kept with the turn before them (``injected``); tool
results come back as user messages too, and are read from the model's
message that called the tool. The turns are made as for Claude Code (agent.py)."""

from __future__ import annotations

import json
from bisect import bisect_left
from pathlib import Path

from ...importers import ImportedConversation
from ...importers.agent import AgentTurns
from ...importers.boundary import Loaded, Reader
from ...importers.files import Unparsed, Unreadable, json_document, json_lines, raw
from ...importers.session_tree import forks
from ...importers.shape import Anything, Count, Flag, ListOf, Maybe, OneOf, Record, Shape, Text, Time
from ...importers.tool_calls import Tools, replace, shell, write
from . import SOURCE, sessions

_PART = Record({"text": Text, "thought": Flag, "inlineData": Anything,
                "functionCall": Record({"id": Text, "name": Text, "args": Anything}),
                "functionResponse": Record({"id": Text, "name": Text, "response": Anything})})
_CONTENT = OneOf(Text, ListOf(_PART, drop=True), what="text or a list of parts")
_MESSAGE = Record({"id": Text, "timestamp": Time, "type": Text, "content": _CONTENT, "displayContent": _CONTENT,
                   "model": Text, "listed": Count,
                   "thoughts": ListOf(Record({"subject": Text, "description": Text}), drop=True),
                   "tokens": Record(dict.fromkeys(("input", "output", "cached", "thoughts", "tool"), Maybe(Count))),
                   "toolCalls": ListOf(Record({"id": Text, "name": Text, "args": Anything, "result": Anything,
                                               "status": Text}), drop=True)}, required=("id",))
_SESSION = Record({"sessionId": Text, "startTime": Time})
TOOLS = Tools({"write_file": write("file_path", "content"),
               "replace": replace("file_path", "old_string", "new_string")}, {"run_shell_command": shell("command")})
INJECTED = {"<session_context>": "context", "<hook_context>": "hook context", "<state_snapshot>": "compaction summary",
            "/": "command", "?": "command",
            "I ran the following shell command:": "shell command"}  # how a user message Gemini CLI wrote begins


class _Change(Shape):
    """One line of the log: a message, a rewind, or the session's own fields (other changes passed over)."""

    def check(self, value):
        if isinstance(value, dict) and isinstance(value.get("$rewindTo"), str):
            return {"kind": "rewind", "to": value["$rewindTo"]}
        if isinstance(value, dict) and isinstance(value.get("id"), str):
            return {"kind": "message", **_MESSAGE.check(value)}
        if isinstance(value, dict) and isinstance(value.get("sessionId"), str):
            return {"kind": "session", **_SESSION.check(value)}
        if isinstance(value, dict):
            return None
        return _SESSION.check(value)  # a misfit, said as one


class Gemini(Reader):
    hint = "Gemini CLI keeps its sessions in ~/.gemini/tmp/*/chats"
    pattern = "**/session-*.json*"  # a session a file, .jsonl (an older Gemini CLI's: .json)
    record = _Change()

    def default_path(self) -> Path:
        return sessions()

    def load(self, file: Path) -> Loaded:
        """The log's lines, a list of messages (in ``$set``, or an older
        file's one object) as one line each, marked ``listed`` with the number of its list."""
        if file.suffix == ".json":
            document = json_document(file)
            if not isinstance(document, dict):
                raise Unreadable("not a session of Gemini CLI's (a JSON object)")
            lines = [document]
        elif file.suffix == ".jsonl":
            lines = json_lines(file)
        else:
            raise Unreadable("not a session of Gemini CLI's (.jsonl)")
        out = []
        for n, line in enumerate(lines):
            changed = line.get("$set") if isinstance(line, dict) else None
            listed = (changed or line).get("messages") if isinstance(changed or line, dict) else None
            out.append(line)
            if isinstance(listed, list):
                out += [{**m, "listed": n} if isinstance(m, dict) and not isinstance(m, Unparsed) else m
                        for m in listed]
        return Loaded(out)

    def conversations(self, loaded: Loaded, file: Path) -> list[ImportedConversation]:
        records = loaded.records
        session = next((r for r in records if r["kind"] == "session"), None) or {}
        return forks(self.source, _replayed(records), lambda r: True, lambda r: r["parentUuid"], _turns, file,
                     session.get("sessionId") or file.stem, origin={"cwd": _worked_in(file)})


READER = Gemini(SOURCE)


def _replayed(records: list[dict]) -> list[dict]:
    """The messages as a tree: each names as its parent the message before it
    when it was first written; a rewind makes the next one a branch. A
    message written again takes its new content in its old place. A list
    (``$set``) adds only what is new: a message of it that says what a held
    one says, in the same order, is that one (a compression writes the
    history it keeps again under new ids), and what it puts before the last
    of those, or holds alone after a history, is Gemini CLI's own (its
    summary of what it dropped), never a question."""
    nodes: dict[str, dict] = {}
    line: list[str] = []
    alias: dict[str, str] = {}  # a listed message's id -> the held message it is
    by_list: dict[int, list[dict]] = {}
    for r in records:
        if r["kind"] == "message" and r["listed"] is not None:
            by_list.setdefault(r["listed"], []).append(r)
    done: set = set()
    for r in records:
        if r["kind"] == "rewind":
            to = alias.get(r["to"], r["to"])
            line = line[:line.index(to)] if to in line else []
        elif r["kind"] == "message" and r["listed"] is not None:
            if r["listed"] not in done:
                done.add(r["listed"])
                line = _listed(by_list[r["listed"]], nodes, line, alias)
        elif r["kind"] == "message" and alias.get(r["id"], r["id"]) in nodes:
            held = alias.get(r["id"], r["id"])
            nodes[held] = {**r, "id": held, "uuid": held, "parentUuid": nodes[held]["parentUuid"]}
        elif r["kind"] == "message":
            nodes[r["id"]] = {**r, "uuid": r["id"], "parentUuid": line[-1] if line else None}
            line.append(r["id"])
    return list(nodes.values())


def _listed(listed: list[dict], nodes: dict, line: list[str], alias: dict) -> list[str]:
    """One list's messages taken in (see _replayed); the line as it goes on.
    A listed message is found at the first place of the line from where the
    last one was found that says the same (each held message's words made
    once: a long session listed again costs its length, not its square)."""
    at, same = 0, {}  # where in the line the next message may be found; listed index -> held id
    place = {held: n for n, held in enumerate(line)}
    saying: dict[tuple, list[int]] = {}
    for n, held in enumerate(line):
        saying.setdefault((nodes[held]["type"], _text(nodes[held]["content"])), []).append(n)
    for n, m in enumerate(listed):
        if m["id"] in nodes:
            same[n] = m["id"]
        else:
            places = saying.get((m["type"], _text(m["content"])), [])
            k = bisect_left(places, at)
            if k == len(places):
                continue
            same[n] = alias[m["id"]] = line[places[k]]
        at = place[same[n]] + 1 if same[n] in place else at
    last = max(same, default=None)
    for n, m in enumerate(listed):
        if n in same:
            continue
        own = (last is not None and n < last) or (last is None and bool(line))
        nodes[m["id"]] = {**m, "uuid": m["id"], "parentUuid": line[-1] if line else None, "own": own}
        line.append(m["id"])
    return line


def _worked_in(file: Path) -> str | None:
    """The folder the session was worked in, as its project's ``.project_root`` says."""
    try:
        found = raw(file.parent.parent / ".project_root").decode("utf-8").strip()
    except (Unreadable, UnicodeDecodeError):
        return None
    return found if found.startswith("/") and "\n" not in found else None


def _text(content) -> str:
    if isinstance(content, str):
        return content
    return "\n\n".join(p["text"] if p["text"] is not None else "[image]" for p in content or ()
                       if (p["text"] is not None and not p["thought"]) or p["inlineData"] is not None)


def _usage(used: dict) -> dict:
    """A message's tokens in conv's classes: Gemini's input holds what was read from the cache (counted apart) and
    leaves out the tools' prompts (counted in); its output leaves out the thoughts (counted in, said apart)."""
    cached = min(used["cached"] or 0, used["input"] or 0)
    return {"prompt_tokens": (used["input"] or 0) - cached + (used["tool"] or 0), "cache_write_tokens": 0,
            "cache_read_tokens": cached, "completion_tokens": (used["output"] or 0) + (used["thoughts"] or 0),
            "reasoning_tokens": used["thoughts"] or 0}


def _turns(chain: list[dict]) -> list:
    turns, answered = AgentTurns(TOOLS), set()
    for r in chain:
        kind, time, source_id, content = r["type"], r["timestamp"], r["id"], r["content"]
        if kind == "user":
            _asked(turns, r, answered)
        elif kind == "gemini" and not r["model"]:
            turns.injected("context", _text(content))  # Gemini CLI's own (its reply to a compression's summary)
        elif kind == "gemini":
            turns.answered_by(r["model"], time, source_id)
            if r["tokens"]:
                turns.used(_usage(r["tokens"]), source_id, time, source_id)
            for thought in r["thoughts"] or ():
                turns.thought(" ".join(t for t in (thought["subject"], thought["description"]) if t), time, source_id)
            for part in content if isinstance(content, list) else ():
                if part["thought"] and part["text"]:
                    turns.thought(part["text"], time, source_id)
            turns.said(_text(content), time, source_id)
            for call in r["toolCalls"] or ():
                turns.called(call["id"] or "", call["name"] or "tool", call["args"], time, source_id)
                if call["result"] is not None:
                    answered.add(call["id"])
                    turns.result(call["id"] or "", _output(call["result"]), call["status"] not in (None, "success"),
                                 time, source_id)
        elif kind is not None:
            turns.injected(kind.replace("_", " "), _text(content))
    return turns.done()


def _asked(turns: AgentTurns, r: dict, answered: set) -> None:
    """A user message: what a person typed, what Gemini CLI wrote itself, or a tool's results going back."""
    content, time = r["content"], r["timestamp"]
    for part in content if isinstance(content, list) else ():
        response = part["functionResponse"]
        if response and response["id"] not in answered:
            answered.add(response["id"])
            turns.result(response["id"] or "", _output(response["response"]), False, time, r["id"])
    text = _text(content)
    own = next((kind for start, kind in INJECTED.items() if text.lstrip().startswith(start)), None)
    own = own or ("compaction summary" if r.get("own") else None)
    typed = _text(r["displayContent"]) if r["displayContent"] else text  # as typed: @file, not the file's text
    if own:
        turns.injected(own, text)
    elif typed.strip():
        turns.typed(typed, time, r["id"])
        if typed != text:
            turns.injected("referenced files", text)


def _output(result) -> str:
    """A tool's result as Gemini CLI keeps it: text, a functionResponse part or a list of them."""
    if isinstance(result, str):
        return result
    parts = result if isinstance(result, list) else [result]
    said = []
    for part in parts:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        output = response.get("response") if isinstance(response, dict) else part
        if isinstance(output, dict) and isinstance(output.get("output"), str):
            said.append(output["output"])
        elif isinstance(output, dict) and isinstance(output.get("error"), str):
            said.append(output["error"])
        else:
            said.append(json.dumps(output, ensure_ascii=False))
    return "\n".join(said)
