"""opencode 1.18's database (read from the real one's): session, message and
part rows, each row's data JSON; an assistant message's tokens (input without
the cache, the reasoning apart) and its own cost; its parts the text, the
reasoning and the tool calls (write, edit, bash) with their state. Two
sessions in one database: the other must survive whatever the first holds."""

import json

from sample import Expect, Sample

CWD, T = "/work/proj", 1795894841307
SCHEMA = """
    CREATE TABLE session (id text PRIMARY KEY, project_id text, parent_id text, directory text, title text,
                          version text, time_created integer, time_updated integer);
    CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer, time_updated integer, data text);
    CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, time_created integer,
                       time_updated integer, data text);
"""

def _session(sid, title):
    return {"id": sid, "project_id": "p", "parent_id": None, "directory": CWD, "title": title, "version": "1.18.33",
            "time_created": T, "time_updated": T}

def _tool(name, args, output):
    return {"type": "tool", "tool": name, "callID": f"call_{name}", "state": {
        "status": "completed", "input": args, "output": output, "title": name}}

RECORDS = {
    "session": [_session("ses_1", "Retry in fetch")],
    "message": [
        {"id": "msg_1", "session_id": "ses_1", "time_created": T, "time_updated": T, "data": {"role": "user"}},
        {"id": "msg_2", "session_id": "ses_1", "time_created": T + 1000, "time_updated": T + 1000, "data": {
            "role": "assistant", "modelID": "claude-sonnet-4-5", "providerID": "anthropic", "cost": 0.0123,
            "tokens": {"input": 20, "output": 60, "reasoning": 15, "cache": {"read": 800, "write": 200}}}},
    ],
    "part": [
        {"id": "prt_1", "message_id": "msg_1", "session_id": "ses_1", "time_created": T, "time_updated": T,
         "data": {"type": "text", "text": "add a retry to fetch.py"}},
        {"id": "prt_2", "message_id": "msg_2", "session_id": "ses_1", "time_created": T + 1000, "time_updated": T,
         "data": {"type": "reasoning", "text": "edit it"}},
        {"id": "prt_3", "message_id": "msg_2", "session_id": "ses_1", "time_created": T + 1001, "time_updated": T,
         "data": _tool("write", {"filePath": f"{CWD}/fetch.py", "content": "def f():\n"}, "Wrote file")},
        {"id": "prt_4", "message_id": "msg_2", "session_id": "ses_1", "time_created": T + 1002, "time_updated": T,
         "data": _tool("edit", {"filePath": f"{CWD}/fetch.py", "oldString": "def f():", "newString": "def f(n=3):"},
                       "Edit applied")},
        {"id": "prt_5", "message_id": "msg_2", "session_id": "ses_1", "time_created": T + 1003, "time_updated": T,
         "data": _tool("bash", {"command": "pytest -q", "description": "tests"}, "1 passed")},
        {"id": "prt_6", "message_id": "msg_2", "session_id": "ses_1", "time_created": T + 1004, "time_updated": T,
         "data": {"type": "text", "text": "Done: fetch retries now."}},
    ],
}
OTHER = {"session": [_session("ses_2", "the other question")],
         "message": [{"id": "msg_o", "session_id": "ses_2", "time_created": T, "time_updated": T,
                      "data": {"role": "user"}}],
         "part": [{"id": "prt_o", "message_id": "msg_o", "session_id": "ses_2", "time_created": T, "time_updated": T,
                   "data": {"type": "text", "text": "the other question"}}]}

SAMPLE = Sample(
    "opencode", RECORDS, "opencode.db",
    Expect(["user", "assistant"], ["add a retry to fetch.py", "fetch retries now"],
           usage={"prompt_tokens": 20, "cache_write_tokens": 200, "cache_read_tokens": 800, "completion_tokens": 75,
                  "reasoning_tokens": 15, "cost": 0.0123},
           edits=[(f"{CWD}/fetch.py", "write"), (f"{CWD}/fetch.py", "replace")], commands=["pytest -q"]),
    form="sqlite", schema=SCHEMA, import_file=True, other=OTHER, together=True,
    fields={"id": [("session", 0, "id"), ("message", 1, "id")], "cwd": [("session", 0, "directory")],
            "title": [("session", 0, "title")],
            "text": [("part", 0, "data", "text"), ("part", 5, "data", "text")],
            "input": [("part", 2, "data", "state", "input")],
            "time": [("message", 0, "time_created"), ("part", 5, "time_created")],
            "cycle": [(("session", 0, "parent_id"), "ses_1"), (("session", 0, "parent_id"), "ses_gone")]},
    home="XDG_DATA_HOME:opencode", settings="",
    handed=lambda file: ([], json.dumps({"session_id": "ses_1", "cwd": CWD}).encode()))
