"""A Cline CLI 3.0 session (read from Cline's code and what the CLI 3.0.65
writes here): the manifest, and the transcript written whole, a person's
text in <user_input>, the editor and run_commands tools and their results,
each model call's metrics (input holding the cache's) with its cost, a
sub-agent's transcript beside it."""

import json

from sample import Expect, Sample

S, CWD = "1784094124598_rruoq", "/work/proj"
T = 1783377200000


def _message(mid, role, n, content, **more):
    return {"id": mid, "role": role, "content": content, "ts": T + n * 1000, **more}


def _metrics(inp, out, read, write, cost):
    return {"inputTokens": inp, "outputTokens": out, "cacheReadTokens": read, "cacheWriteTokens": write, "cost": cost}


def _use(cid, name, args):
    return {"type": "tool_use", "id": cid, "name": name, "input": args}


def _result(cid, name, content):
    return {"type": "tool_result", "tool_use_id": cid, "name": name, "content": content}


MODEL = {"id": "anthropic/claude-sonnet-4.5", "provider": "cline", "family": "claude"}
MESSAGES = [
    _message("msg_1", "user", 0, [{"type": "text",
                                   "text": '<user_input mode="act">add a retry to fetch.py</user_input>'}]),
    _message("msg_2", "assistant", 1, [{"type": "thinking", "thinking": "edit, then test"},
                                       _use("toolu_1", "editor", {"path": f"{CWD}/fetch.py", "new_text": "def f():\n"}),
                                       _use("toolu_2", "editor", {"path": f"{CWD}/fetch.py", "old_text": "def f():",
                                                                  "new_text": "def f(tries=3):"}),
                                       _use("toolu_3", "run_commands", {"commands": ["pytest -q"]})],
             modelInfo=MODEL, metrics=_metrics(1000, 80, 700, 200, 0.012)),
    _message("msg_3", "user", 2, [_result("toolu_1", "editor", '{"query": "create", "result": "Created"}'),
                                  _result("toolu_2", "editor", '{"query": "edit", "result": "Edited"}'),
                                  _result("toolu_3", "run_commands", [{"query": "pytest -q", "result": "1 passed",
                                                                       "success": True}])]),
    _message("msg_4", "assistant", 3, [{"type": "text", "text": "Done: fetch retries three times."}],
             modelInfo=MODEL, metrics=_metrics(1200, 20, 1000, 0, 0.004)),
]
RECORDS = {"version": 1, "updated_at": "2026-11-26T10:00:04.000Z", "agent": "lead", "sessionId": S,
           "messages": MESSAGES}
MANIFEST = {"version": 1, "session_id": S, "source": "cli", "pid": 1, "started_at": "2026-11-26T10:00:00.000Z",
            "status": "completed", "interactive": False, "provider": "cline", "model": MODEL["id"], "cwd": CWD,
            "workspace_root": CWD, "metadata": {"title": "add a retry to fetch.py"}}
SUBAGENT = {"version": 1, "agent": "subagent", "sessionId": f"{S}__agent_1", "messages": [
    _message("sub_1", "assistant", 1, [{"type": "text", "text": "looked around"}], modelInfo=MODEL,
             metrics=_metrics(300, 10, 0, 0, 0.001))]}
OTHER_S = "1784094124599_other"
OTHER = {"version": 1, "agent": "lead", "sessionId": OTHER_S, "messages": [
    _message("o_1", "user", 0, [{"type": "text", "text": "the other question"}])]}
SETTINGS = ""  # conv's hook is a file of conv's own

SAMPLE = Sample(
    "cline", RECORDS, f"data/sessions/{S}/{S}.messages.json",
    Expect(["user", "assistant"], ["add a retry to fetch.py", "retries three times"],
           usage={"prompt_tokens": 100 + 200 + 300, "cache_write_tokens": 200, "cache_read_tokens": 1700,
                  "completion_tokens": 80 + 20 + 10, "cost": 0.017},
           edits=[(f"{CWD}/fetch.py", "write"), (f"{CWD}/fetch.py", "replace")], commands=["pytest -q"]),
    form="json", import_at="data/sessions", other=OTHER,
    other_layout=f"data/sessions/{OTHER_S}/{OTHER_S}.messages.json",
    extra={f"data/sessions/{S}/{S}.json": json.dumps(MANIFEST),
           f"data/sessions/{S}/agent_1.messages.json": json.dumps(SUBAGENT)},
    fields={"id": [("messages", 0, "id")], "text": [("messages", 0, "content", 0, "text"),
                                                     ("messages", 3, "content", 0, "text")],
            "input": [("messages", 1, "content", 1, "input")], "time": [("messages", 0, "ts"), ("messages", 3, "ts")]},
    home="CLINE_DIR", settings=SETTINGS,
    handed=lambda file: ([], json.dumps({
        "clineVersion": "", "taskId": "conv_1784094124600_k3j9x2a", "sessionContext": {"rootSessionId": S},
        "workspaceRoots": [CWD], "hookName": "agent_end",
        "turn": {"outputText": "Done: fetch retries three times.", "status": "completed"}}).encode()))
