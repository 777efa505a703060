"""A pi 0.73 session (format 3, read from the real one's): the session line,
a tree of entries by id and parentId, the assistant's blocks (thinking, tool
calls write, edit with its list of edits, bash), tool results, usage in
classes with pi's own cost, the session's name."""

import json

from sample import Expect, Sample

S, CWD = "0197a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "/work/proj"


def _t(n: int) -> str:
    return f"2026-11-26T10:00:{n:02d}.000Z"


def _entry(eid, parent, n, message):
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": _t(n), "message": message}


def _usage(inp, out, read, write, cost):
    return {"input": inp, "output": out, "cacheRead": read, "cacheWrite": write,
            "totalTokens": inp + out + read + write,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}}


RECORDS = [
    {"type": "session", "version": 3, "id": S, "timestamp": _t(0), "cwd": CWD},
    {"type": "model_change", "id": "p1", "parentId": None, "timestamp": _t(0), "provider": "anthropic",
     "modelId": "claude-sonnet-4-5"},
    _entry("p2", "p1", 1, {"role": "user", "content": [{"type": "text", "text": "add a retry to fetch.py"}],
                           "timestamp": 1}),
    _entry("p3", "p2", 2, {"role": "assistant", "model": "claude-sonnet-4-5", "provider": "anthropic",
                           "usage": _usage(10, 40, 0, 500, 0.0021), "stopReason": "toolUse", "content": [
        {"type": "thinking", "thinking": "write then edit"},
        {"type": "toolCall", "id": "c1", "name": "write", "arguments": {"path": "fetch.py", "content": "a\n"}},
        {"type": "toolCall", "id": "c2", "name": "edit", "arguments": {"path": "fetch.py", "edits": [
            {"oldText": "a\n", "newText": "b\n"}]}},
        {"type": "toolCall", "id": "c3", "name": "bash", "arguments": {"command": "make test"}}]}),
    _entry("p4", "p3", 3, {"role": "toolResult", "toolCallId": "c1", "toolName": "write",
                           "content": [{"type": "text", "text": "wrote"}], "isError": False}),
    _entry("p5", "p4", 3, {"role": "toolResult", "toolCallId": "c2", "toolName": "edit",
                           "content": [{"type": "text", "text": "edited"}], "isError": False}),
    _entry("p6", "p5", 3, {"role": "toolResult", "toolCallId": "c3", "toolName": "bash",
                           "content": [{"type": "text", "text": "ok"}], "isError": False}),
    _entry("p7", "p6", 4, {"role": "assistant", "model": "claude-sonnet-4-5", "usage": _usage(5, 12, 500, 0, 0.0009),
                           "content": [{"type": "text", "text": "Done: it retries now."}], "stopReason": "stop"}),
    {"type": "session_info", "id": "p8", "parentId": "p7", "timestamp": _t(5), "name": "fetch retries"},
]
OTHER_S = "0197a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c"
OTHER = [{"type": "session", "version": 3, "id": OTHER_S, "timestamp": _t(0), "cwd": CWD},
         _entry("o1", None, 1, {"role": "user", "content": "the other question"})]

SAMPLE = Sample(
    "pi", RECORDS, f"sessions/--work-proj--/2026-11-26T10-00-00-000Z_{S}.jsonl",
    Expect(["user", "assistant"], ["add a retry to fetch.py", "it retries now"],
           usage={"prompt_tokens": 15, "cache_write_tokens": 500, "cache_read_tokens": 500,
                  "completion_tokens": 52, "cost": 0.003},
           edits=[("fetch.py", "write"), ("fetch.py", "replace")], commands=["make test"]),
    fields={"id": [(0, "id"), (2, "id")], "cwd": [(0, "cwd")], "title": [(8, "name")],
            "text": [(2, "message", "content", 0, "text"), (7, "message", "content", 0, "text")],
            "input": [(3, "message", "content", 1, "arguments")], "time": [(0, "timestamp"), (7, "timestamp")],
            "cycle": [((1, "parentId"), "p7")]},
    other=OTHER, other_layout=f"sessions/--work-proj--/2026-11-26T11-00-00-000Z_{OTHER_S}.jsonl",
    home="PI_CODING_AGENT_DIR", settings="",
    handed=lambda file: ([], json.dumps({"session_id": S, "session_file": str(file), "cwd": CWD}).encode()))
