"""A Qwen Code 0.24 session (read from the real one's): records chained by
uuid through telemetry, Gemini's parts (a thought, function calls), its
usageMetadata (the prompt holding the cached), tool_result records, a
compression's summary."""

import json

from sample import Expect, Sample

S, CWD = "7a6b5c4d-0000-4e3f-8a9b-0c1d2e3f4a5b", "/work/proj"


def _t(n: int) -> str:
    return f"2026-11-26T10:00:{n:02d}.000Z"


def _rec(uuid, parent, n, kind, **more):
    return {"uuid": uuid, "parentUuid": parent, "sessionId": S, "timestamp": _t(n), "type": kind, "cwd": CWD,
            "version": "0.24.4", **more}


def _call(cid, name, args):
    return {"functionCall": {"id": cid, "name": name, "args": args}}


def _back(uuid, parent, n, cid, name, output):
    return _rec(uuid, parent, n, "tool_result", message={"role": "user", "parts": [
        {"functionResponse": {"id": cid, "name": name, "response": {"output": output}}}]},
        toolCallResult={"callId": cid, "status": "success"})


RECORDS = [
    _rec("q1", None, 0, "user", provenance="real_user", message={"role": "user", "parts": [{"text": "run the tests"}]}),
    _rec("q2", "q1", 0, "system", subtype="ui_telemetry", systemPayload={"uiEvent": {"event.name": "api_response"}}),
    _rec("q3", "q2", 1, "assistant", model="qwen3-coder-plus", message={"role": "model", "parts": [
        {"text": "checking", "thought": True}, _call("c1", "write_file", {"file_path": f"{CWD}/t.py", "content": "x"}),
        _call("c2", "run_shell_command", {"command": "make test"})]},
        usageMetadata={"promptTokenCount": 500, "candidatesTokenCount": 30, "thoughtsTokenCount": 8,
                       "cachedContentTokenCount": 400}),
    _back("q4", "q3", 2, "c1", "write_file", "ok"),
    _back("q5", "q4", 2, "c2", "run_shell_command", "all green"),
    _rec("q6", "q5", 3, "assistant", model="qwen3-coder-plus", message={"role": "model", "parts": [
        {"text": "All tests pass."}]}, usageMetadata={"promptTokenCount": 600, "candidatesTokenCount": 5}),
    _rec("q7", "q6", 4, "system", subtype="chat_compression", systemPayload={"compressedHistory": [
        {"role": "user", "parts": [{"text": "summary of it all"}]}]}),
]
OTHER = [{**_rec("o1", None, 0, "user", provenance="real_user", message={"role": "user", "parts": [
    {"text": "the other question"}]}), "sessionId": "other-session"}]

SETTINGS = ('{\n'
            '  "general": {"enableAutoUpdate": false},\n'
            '  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}\n'
            '}\n')  # the user's own, before conv connect

SAMPLE = Sample(
    "qwen", RECORDS, f"projects/-work-proj/chats/{S}.jsonl",
    Expect(["user", "assistant"], ["run the tests", "All tests pass."],
           usage={"prompt_tokens": 100 + 600, "cache_write_tokens": 0, "cache_read_tokens": 400,
                  "completion_tokens": 38 + 5, "reasoning_tokens": 8},
           edits=[(f"{CWD}/t.py", "write")], commands=["make test"]),
    fields={"id": [(0, "sessionId"), (0, "uuid")], "cwd": [(0, "cwd")],
            "text": [(0, "message", "parts", 0, "text"), (5, "message", "parts", 0, "text")],
            "input": [(2, "message", "parts", 1, "functionCall", "args")], "time": [(0, "timestamp")],
            "cycle": [((0, "parentUuid"), "q6")]},
    other=OTHER, other_layout="projects/-work-proj/chats/other-session.jsonl",
    home="QWEN_HOME", settings=SETTINGS,
    handed=lambda file: ([], json.dumps({
        "session_id": S, "transcript_path": str(file), "cwd": CWD, "hook_event_name": "Stop",
        "last_assistant_message": "All tests pass."}).encode()))
