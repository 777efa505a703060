"""A Cursor agent transcript (the JSON lines form; the shape cass's,
agentsview's and cursor-history's readers agree on, from real files): no
ids, times or tokens; a person's words in <user_query> after a <timestamp>;
the model's text and tool calls (Write, StrReplace, Shell); the control lines
between turns. tests/test_cursor.py writes the CLI's store.db and the
editor's state.vscdb in their schemas."""

from sample import Expect, Sample

ID, CWD = "93d7b323-695c-4b84-8b69-d48bb88ae780", "/work/proj"


def _user(text):
    return {"role": "user", "message": {"content": [{"type": "text", "text": (
        f"<timestamp>Thursday, Nov 26, 2026, 10:00 AM (UTC+0)</timestamp>\n<user_query>\n{text}\n</user_query>")}]}}


RECORDS = [
    _user("add a retry to fetch.py"),
    {"role": "assistant", "message": {"content": [
        {"type": "text", "text": "I'll write it."},
        {"type": "tool_use", "name": "Write", "input": {"path": f"{CWD}/fetch.py", "contents": "def f():\n"}},
        {"type": "tool_use", "name": "StrReplace", "input": {"path": f"{CWD}/fetch.py", "old_string": "def f():",
                                                             "new_string": "def f(tries=3):"}}]}},
    {"role": "assistant", "message": {"content": [
        {"type": "text", "text": "[REDACTED]"},
        {"type": "tool_use", "name": "Shell", "input": {"command": "pytest -q", "description": "tests"}}]}},
    {"role": "assistant", "message": {"content": [{"type": "text", "text": "Done: fetch retries three times."}]}},
    {"type": "turn_ended", "status": "success"},
]
OTHER = [_user("the other question"), {"role": "assistant", "message": {"content": [{"type": "text", "text": "x"}]}}]

SAMPLE = Sample(
    "cursor", RECORDS, f"projects/work-proj/agent-transcripts/{ID}.jsonl",
    Expect(["user", "assistant"], ["add a retry to fetch.py", "retries three times"],
           edits=[(f"{CWD}/fetch.py", "write"), (f"{CWD}/fetch.py", "replace")], commands=["pytest -q"]),
    other=OTHER, other_layout="projects/work-proj/agent-transcripts/0b1e2f3a-0000-4000-8000-000000000001.jsonl",
    fields={"text": [(0, "message", "content", 0, "text"), (3, "message", "content", 0, "text")],
            "input": [(1, "message", "content", 1, "input")]})
