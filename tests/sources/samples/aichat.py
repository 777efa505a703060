"""aichat's sessions: a session a YAML file (its model, its messages; a
tool's results as a message of their own)."""

from sample import Expect, Sample

RECORDS = {"model": "openai:gpt-4o", "messages": [
    {"role": "system", "content": "be brief"}, {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    {"role": "tool", "content": {"tool_results": [{"call": {"id": "c1", "name": "fs", "arguments": {"p": 1}},
                                                   "output": {"ok": True}}]}},
    {"role": "assistant", "content": "hello"}]}
OTHER = {"model": "openai:gpt-4o", "messages": [{"role": "user", "content": "the other question"},
                                                 {"role": "assistant", "content": "its answer"}]}

SAMPLE = Sample(
    "aichat", RECORDS, "sessions/s1.yaml", Expect(["system", "user", "assistant"], ["hi", "hello"]),
    form="yaml", other=OTHER, other_layout="sessions/s2.yaml", import_at="sessions",
    fields={"text": [("messages", 1, "content", 0, "text"), ("messages", 3, "content")], "title": [("model",)]})
