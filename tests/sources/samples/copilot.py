"""A Copilot CLI 1.0.102 event log (read from the real one's): the session
start with its folder and branch, what was typed, the model's messages with
tool requests (create, str_replace_editor, bash), their completions, each
model call's usage record (input holding the cache's), a workspace.yaml."""

import json

from sample import Expect, Sample

S, CWD = "3c2b1a09-8888-4d7e-9f0a-1b2c3d4e5f60", "/work/proj"


def _t(n: int) -> str:
    return f"2026-11-26T10:00:{n:02d}.000Z"


def _ev(eid, parent, n, kind, data):
    return {"type": kind, "data": data, "id": eid, "timestamp": _t(n), "parentId": parent}


def _done(eid, parent, n, call, text):
    return _ev(eid, parent, n, "tool.execution_complete", {"toolCallId": call, "success": True,
                                                            "result": {"content": text}})


RECORDS = [
    _ev("e0", None, 0, "session.start", {"sessionId": S, "version": 1, "producer": "copilot-agent",
                                          "copilotVersion": "1.0.102", "startTime": _t(0),
                                          "context": {"cwd": CWD, "branch": "main"}}),
    _ev("e1", "e0", 0, "user.message", {"content": "add a retry to fetch.py", "transformedContent": "<x>"}),
    _ev("e2", "e1", 1, "session.usage_record", {"usage": {"inputTokens": 1000, "outputTokens": 50,
                                                           "cacheReadTokens": 700, "cacheWriteTokens": 100,
                                                           "apiCallId": "a1", "cost": 1}}),
    _ev("e3", "e2", 1, "assistant.message", {"content": "", "model": "gpt-5", "messageId": "m1", "toolRequests": [
        {"toolCallId": "c1", "name": "create", "arguments": {"path": f"{CWD}/fetch.py", "file_text": "def f():\n"}},
        {"toolCallId": "c2", "name": "str_replace_editor", "arguments": {
            "command": "str_replace", "path": f"{CWD}/fetch.py", "old_str": "def f():", "new_str": "def f(n=3):"}},
        {"toolCallId": "c3", "name": "bash", "arguments": {"command": "pytest -q", "description": "tests"}}]}),
    _done("e4", "e3", 2, "c1", "Created file"),
    _done("e5", "e4", 2, "c2", "Edited"),
    _done("e6", "e5", 2, "c3", "1 passed"),
    _ev("e7", "e6", 3, "session.usage_record", {"usage": {"inputTokens": 1200, "outputTokens": 10,
                                                           "apiCallId": "a2"}}),
    _ev("e8", "e7", 3, "assistant.message", {"content": "Done: fetch retries three times.", "model": "gpt-5"}),
]
OTHER_S = "3c2b1a09-9999-4d7e-9f0a-1b2c3d4e5f60"
OTHER = [_ev("o0", None, 0, "session.start", {"sessionId": OTHER_S, "context": {"cwd": CWD}}),
         _ev("o1", "o0", 1, "user.message", {"content": "the other question"})]

SETTINGS = ''  # the user's own, before conv connect (conv's hooks are a file of conv's own)
MCP_CONFIG = ('{\r\n    "mcpServers": {\r\n        "docs": {"type": "local", "command": "docs-mcp", "tools": ["*"]}'
              '\r\n    }\r\n}\r\n')


SAMPLE = Sample(
    "copilot", RECORDS, f"session-state/{S}/events.jsonl",
    Expect(["user", "assistant"], ["add a retry to fetch.py", "retries three times"],
           usage={"prompt_tokens": 200 + 1200, "cache_write_tokens": 100, "cache_read_tokens": 700,
                  "completion_tokens": 60, "reasoning_tokens": 0},
           edits=[(f"{CWD}/fetch.py", "write"), (f"{CWD}/fetch.py", "replace")], commands=["pytest -q"]),
    fields={"id": [(0, "data", "sessionId"), (1, "id")], "cwd": [(0, "data", "context", "cwd")],
            "branch": [(0, "data", "context", "branch")], "text": [(1, "data", "content"), (8, "data", "content")],
            "input": [(3, "data", "toolRequests", 0, "arguments")], "time": [(1, "timestamp"), (8, "timestamp")]},
    other=OTHER, other_layout=f"session-state/{OTHER_S}/events.jsonl",
    extra={f"session-state/{S}/workspace.yaml": f"id: {S}\ncwd: {CWD}\n", "mcp-config.json": MCP_CONFIG},
    home="COPILOT_HOME", settings=SETTINGS,
    handed=lambda file: ([], json.dumps({
        "sessionId": S, "transcriptPath": str(file), "cwd": CWD,
        "stopReason": "end_turn"}).encode()))
