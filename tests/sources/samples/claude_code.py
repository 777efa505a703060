"""A Claude Code 2.x session (read from 2.1.328's files): a content block a
record, the records of one model call sharing its message id and request id
and repeating its usage (the earlier ones with part of the output), a
cache_creation object's parts, a Write, an Edit, a Bash, a sub-agent's
model call on the side, the summary that titles it."""

import json

from sample import Expect, Sample

S, CWD = "5f0c9a4e-1111-4b1e-9a1e-3c6a2e8d0001", "/work/proj"
BASE = {"isSidechain": False, "userType": "external", "cwd": CWD, "sessionId": S, "version": "2.1.328",
        "gitBranch": "main"}


def _t(n: int) -> str:
    return f"2026-11-26T10:00:{n:02d}.000Z"


def _said(uuid, parent, n, message, **more):
    return {"parentUuid": parent, **BASE, "type": message["role"], "message": message, "uuid": uuid,
            "timestamp": _t(n), **more}


def _answer(msg, content, usage):
    return {"id": msg, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": content,
            "stop_reason": None, "usage": {"service_tier": "standard", **usage}}


def _result(call, text, error=False):
    return {"role": "user", "content": [{"tool_use_id": call, "type": "tool_result", "content": text,
                                         "is_error": error}]}


WRITTEN = "def fetch(url):\n    return get(url)\n"
RETRY = "    for attempt in range(3):\n        try:\n            return get(url)\n        except IOError:\n" \
        "            sleep(2 ** attempt)\n"
FIRST = {"input_tokens": 12, "cache_creation_input_tokens": 300, "cache_read_input_tokens": 0,
         "cache_creation": {"ephemeral_5m_input_tokens": 300, "ephemeral_1h_input_tokens": 0}}
RECORDS = [
    {"type": "queue-operation", "operation": "dequeue", "timestamp": _t(0), "sessionId": S},
    _said("u1", None, 0, {"role": "user", "content": "add a retry to fetch.py"}),
    _said("a1", "u1", 1, _answer("msg_01", [{"type": "thinking", "thinking": "Write it, then retry.",
                                             "signature": "x"}], {**FIRST, "output_tokens": 3}), requestId="req_1"),
    _said("a2", "a1", 2, _answer("msg_01", [{"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {
        "file_path": f"{CWD}/fetch.py", "content": WRITTEN}}], {**FIRST, "output_tokens": 40}), requestId="req_1"),
    _said("r1", "a2", 3, _result("toolu_1", f"File created successfully at: {CWD}/fetch.py")),
    _said("a3", "r1", 4, _answer("msg_02", [{"type": "tool_use", "id": "toolu_2", "name": "Edit", "input": {
        "file_path": f"{CWD}/fetch.py", "old_string": "    return get(url)\n", "new_string": RETRY,
        "replace_all": False}}], {"input_tokens": 5, "cache_creation_input_tokens": 50,
                                  "cache_read_input_tokens": 300, "output_tokens": 60}), requestId="req_2"),
    _said("r2", "a3", 5, _result("toolu_2", "The file has been updated.")),
    _said("a4", "r2", 6, _answer("msg_03", [{"type": "tool_use", "id": "toolu_3", "name": "Bash", "input": {
        "command": "python -m pytest -q", "description": "Run the tests"}}],
        {"input_tokens": 3, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 350, "output_tokens": 20}),
        requestId="req_3"),
    {"parentUuid": None, **BASE, "isSidechain": True, "agentId": "ag1", "type": "assistant", "uuid": "s1",
     "timestamp": _t(7), "requestId": "req_s", "message": _answer("msg_s1", [{"type": "text", "text": "looked"}], {
         "input_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 20})},
    _said("r3", "a4", 8, _result("toolu_3", "1 passed in 0.01s")),
    _said("a5", "r3", 9, _answer("msg_04", [{"type": "text", "text": "Added a retry with backoff; the test passes."}],
                                 {"input_tokens": 2, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 400,
                                  "output_tokens": 15}), requestId="req_4"),
    {"type": "summary", "summary": "Retry in fetch.py", "leafUuid": "a5"},
]
OTHER = [{**r, "sessionId": "5f0c9a4e-2222-4b1e-9a1e-3c6a2e8d0002", "uuid": f"o-{r['uuid']}",
          "parentUuid": r["parentUuid"] and f"o-{r['parentUuid']}"} for r in RECORDS[1:3]]
OTHER[0]["message"] = {"role": "user", "content": "the other question"}

SETTINGS = ('{\r\n'
            '    "theme": "dark",\r\n'
            '    "hooks": {\r\n'
            '        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]\r\n'
            '    }\r\n'
            '}\r\n')  # the user's own, before conv connect

SAMPLE = Sample(
    "claude-code", RECORDS, f"projects/-work-proj/{S}.jsonl",
    Expect(["user", "assistant"], ["add a retry to fetch.py", "the test passes"],
           usage={"prompt_tokens": 12 + 5 + 3 + 100 + 2, "cache_write_tokens": 300 + 50,
                  "cache_read_tokens": 300 + 350 + 400, "completion_tokens": 40 + 60 + 20 + 20 + 15},
           edits=[(f"{CWD}/fetch.py", "write"), (f"{CWD}/fetch.py", "replace")], commands=["python -m pytest -q"]),
    fields={"id": [(1, "sessionId"), (1, "uuid")], "cwd": [(1, "cwd")], "branch": [(1, "gitBranch")],
            "title": [(11, "summary")], "text": [(1, "message", "content"), (10, "message", "content", 0, "text")],
            "input": [(3, "message", "content", 0, "input")], "time": [(1, "timestamp"), (10, "timestamp")],
            "cycle": [((1, "parentUuid"), "a5"), ((3, "parentUuid"), "a2")]},
    other=OTHER, other_layout="projects/-work-proj/5f0c9a4e-2222-4b1e-9a1e-3c6a2e8d0002.jsonl",
    home="CLAUDE_CONFIG_DIR", settings=SETTINGS,
    handed=lambda file: ([], json.dumps({
        "session_id": S, "transcript_path": str(file), "cwd": CWD, "hook_event_name": "Stop",
        "last_assistant_message": "Added a retry with backoff; the test passes."}).encode()))
