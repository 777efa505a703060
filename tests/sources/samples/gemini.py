"""A Gemini CLI 0.61 session log (read from the real one's): the session
line, a $set of its context, the question, the model's message with its
thoughts, tokens (input holding the cached, thoughts apart) and tool calls
(write_file, replace, run_shell_command) with their results, the project's
.project_root naming the folder worked in."""

import json

from sample import Expect, Sample

S, CWD = "9d1b7c2e-4444-4a8e-b0c1-5e6f7a8b9c0d", "/work/proj"


def _t(n: int) -> str:
    return f"2026-11-26T10:00:{n:02d}.000Z"


def _call(cid, name, args, output):
    return {"id": cid, "name": name, "args": args, "status": "success", "timestamp": _t(3),
            "result": [{"functionResponse": {"id": cid, "name": name, "response": {"output": output}}}]}


RECORDS = [
    {"sessionId": S, "projectHash": "h", "startTime": _t(0), "lastUpdated": _t(9), "kind": "main"},
    {"$set": {"messages": [{"id": "m0", "timestamp": _t(0), "type": "user",
                            "content": [{"text": "<session_context>\nThis is the Gemini CLI.</session_context>"}]}]}},
    {"id": "m1", "timestamp": _t(1), "type": "user", "content": [{"text": "add a retry to fetch.py"}]},
    {"id": "m2", "timestamp": _t(2), "type": "gemini", "content": "I wrote it and ran the tests: they pass.",
     "model": "gemini-2.5-pro", "thoughts": [{"subject": "Plan", "description": "write, edit, test"}],
     "tokens": {"input": 900, "output": 40, "cached": 600, "thoughts": 25, "tool": 10, "total": 975},
     "toolCalls": [_call("c1", "write_file", {"file_path": f"{CWD}/fetch.py", "content": "def fetch(url):\n"}, "ok"),
                   _call("c2", "replace", {"file_path": f"{CWD}/fetch.py", "old_string": "def fetch(url):\n",
                                           "new_string": "def fetch(url, tries=3):\n"}, "ok"),
                   _call("c3", "run_shell_command", {"command": "pytest -q"}, "1 passed")]},
]
OTHER_S = "9d1b7c2e-5555-4a8e-b0c1-5e6f7a8b9c0d"
OTHER = [{"sessionId": OTHER_S, "startTime": _t(0), "kind": "main"},
         {"id": "o1", "timestamp": _t(1), "type": "user", "content": [{"text": "the other question"}]},
         {"id": "o2", "timestamp": _t(2), "type": "gemini", "content": "its answer", "model": "gemini-2.5-pro"}]

SETTINGS = ('{\n'
            '\t"ui": {"theme": "ANSI"},\n'
            '\t"mcpServers": {"docs": {"command": "docs-mcp"}}\n'
            '}\n')  # the user's own, before conv connect

SAMPLE = Sample(
    "gemini", RECORDS, "tmp/proj/chats/session-2026-11-26T10-00-9d1b7c2e.jsonl",
    Expect(["user", "assistant"], ["add a retry to fetch.py", "they pass"],
           usage={"prompt_tokens": 900 - 600 + 10, "cache_write_tokens": 0, "cache_read_tokens": 600,
                  "completion_tokens": 40 + 25, "reasoning_tokens": 25},
           edits=[(f"{CWD}/fetch.py", "write"), (f"{CWD}/fetch.py", "replace")], commands=["pytest -q"]),
    fields={"id": [(0, "sessionId"), (2, "id")], "text": [(2, "content", 0, "text"), (3, "content")],
            "input": [(3, "toolCalls", 0, "args")], "time": [(0, "startTime"), (3, "timestamp")]},
    other=OTHER, other_layout="tmp/proj/chats/session-2026-11-26T11-00-9d1b7c2e.jsonl",
    extra={"tmp/proj/.project_root": CWD},
    home="GEMINI_CLI_HOME:.gemini", settings=SETTINGS,
    handed=lambda file: ([], json.dumps({
        "session_id": S, "transcript_path": str(file), "cwd": CWD,
        "hook_event_name": "AfterAgent", "prompt_response": "they pass."}).encode()))
