"""A Codex CLI 0.169 rollout (read from the real one's): session_meta, the
context Codex writes as user messages itself, what the screen showed as
typed and said (item_completed), an exec_command, an apply_patch (a
custom tool call, its input Codex's patch format), token_usage_record a
response with cached and reasoning tokens."""

import json

from sample import Expect, Sample

ID, CWD = "01a234a4-a970-7810-b91e-2527086942b7", "/work/proj"
PATCH = ("*** Begin Patch\n*** Update File: fetch.py\n@@ def fetch(url):\n-    return get(url)\n"
         "+    return get(url, timeout=10)\n*** Add File: NOTES.md\n+retry notes\n*** End Patch\n")


def _t(n: int) -> str:
    return f"2026-11-26T10:00:{n:02d}.000Z"


def _rec(n, kind, payload):
    return {"timestamp": _t(n), "ordinal": n, "type": kind, "payload": payload}


def _msg(role, text, kind="input_text", mid=None):
    return {"type": "message", "id": mid or f"msg_{role}_{len(text)}", "role": role,
            "content": [{"type": kind, "text": text}]}


def _shown(kind, text):
    return {"type": "item_completed", "thread_id": ID, "item": {"type": kind, "id": "i", "content": [
        {"type": "text" if kind == "UserMessage" else "Text", "text": text}]}}


def _used(n, rid, inp, cached, out, reasoning):
    return _rec(n, "token_usage_record", {"thread_id": ID, "session_id": ID, "response_id": rid, "usage": {
        "input_tokens": inp, "cached_input_tokens": cached, "cache_write_input_tokens": 0, "output_tokens": out,
        "reasoning_output_tokens": reasoning, "total_tokens": inp + out}})


QUESTION, ANSWER = "make fetch time out after 10 s", "Done: fetch now times out after 10 s."
RECORDS = [
    _rec(0, "session_meta", {"session_id": ID, "id": ID, "timestamp": _t(0), "cwd": CWD, "originator": "codex_exec",
                             "cli_version": "0.169.0", "source": "exec", "model_provider": "openai",
                             "git": {"commit_hash": "abc123", "branch": "main"}}),
    _rec(1, "response_item", _msg("developer", "<permissions instructions>…")),
    _rec(2, "response_item", _msg("user", f"<environment_context>\n  <cwd>{CWD}</cwd>\n</environment_context>")),
    _rec(3, "turn_context", {"cwd": CWD, "approval_policy": "never", "model": "gpt-5.5", "summary": "auto"}),
    _rec(4, "response_item", _msg("user", QUESTION)),
    _rec(5, "event_msg", _shown("UserMessage", QUESTION)),
    _rec(6, "response_item", {"type": "reasoning", "id": "rs_1", "summary": [
        {"type": "summary_text", "text": "Look at fetch.py first."}], "content": None, "encrypted_content": None}),
    _rec(7, "response_item", {"type": "function_call", "id": "fc_1", "name": "exec_command",
                              "arguments": "{\"cmd\": \"cat fetch.py\"}", "call_id": "call_1"}),
    _used(8, "resp_1", 1200, 1000, 30, 12),
    _rec(9, "response_item", {"type": "function_call_output", "call_id": "call_1", "output":
                              "Chunk ID: 1\nWall time: 0.01 seconds\nProcess exited with code 0\nOutput:\n"
                              "def fetch(url):\n    return get(url)\n"}),
    _rec(10, "response_item", {"type": "custom_tool_call", "id": "ctc_1", "status": "completed", "call_id": "call_2",
                               "name": "apply_patch", "input": PATCH}),
    _used(11, "resp_2", 1300, 1200, 80, 20),
    _rec(12, "response_item", {"type": "custom_tool_call_output", "call_id": "call_2",
                               "output": "Success. Updated the following files:\nM fetch.py\nA NOTES.md\n"}),
    _rec(13, "event_msg", _shown("AgentMessage", ANSWER)),
    _rec(14, "response_item", _msg("assistant", ANSWER, "output_text", "msg_a")),
    _used(15, "resp_3", 1400, 1300, 20, 0),
]
OTHER_ID = "01a234a4-a970-7810-b91e-2527086942b8"
OTHER = [_rec(0, "session_meta", {"id": OTHER_ID, "cwd": CWD}),
         _rec(1, "response_item", _msg("user", "the other question")),
         _rec(2, "response_item", _msg("assistant", "its answer", "output_text"))]

SETTINGS = ('# my own\n'
            'model = "gpt-5.5"\n'
            'notify = ["notify-send", "codex"]\n'
            '\n'
            '[mcp_servers.docs]\n'
            'command = "docs-mcp"\n')  # the user's own, before conv connect

SAMPLE = Sample(
    "codex", RECORDS, f"sessions/2026/11/26/rollout-2026-11-26T10-00-00-{ID}.jsonl",
    Expect(["user", "assistant"], [QUESTION, ANSWER],
           usage={"prompt_tokens": 200 + 100 + 100, "cache_write_tokens": 0, "cache_read_tokens": 1000 + 1200 + 1300,
                  "completion_tokens": 30 + 80 + 20, "reasoning_tokens": 12 + 20},
           edits=[("fetch.py", "patch"), ("NOTES.md", "write")], commands=["cat fetch.py"]),
    fields={"id": [(0, "payload", "id")], "cwd": [(0, "payload", "cwd")], "branch": [(0, "payload", "git", "branch")],
            "text": [(4, "payload", "content", 0, "text"), (14, "payload", "content", 0, "text")],
            "input": [(10, "payload", "input")], "time": [(0, "timestamp"), (14, "timestamp")]},
    other=OTHER, other_layout=f"sessions/2026/11/26/rollout-2026-11-26T11-00-00-{OTHER_ID}.jsonl",
    home="CODEX_HOME", settings=SETTINGS,
    handed=lambda file: ([json.dumps({
        "type": "agent-turn-complete", "thread-id": ID, "cwd": CWD,
        "last-assistant-message": ANSWER})], b""))
