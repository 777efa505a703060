"""llm's logs.db in its tables up to 0.31 (read from the real one's: the
suite's test_importers.py drives the real llm for both generations):
conversations and responses, one row an exchange. Two conversations in one
database: the other must survive whatever the first holds."""

from sample import Expect, Sample

SCHEMA = """
    CREATE TABLE conversations (id TEXT PRIMARY KEY, name TEXT, model TEXT);
    CREATE TABLE responses (id TEXT PRIMARY KEY, model TEXT, prompt TEXT, system TEXT, prompt_json TEXT,
                            options_json TEXT, response TEXT, response_json TEXT, conversation_id TEXT,
                            duration_ms INTEGER, datetime_utc TEXT, input_tokens INTEGER, output_tokens INTEGER);
"""


def _response(rid, conv, prompt, answer, at):
    return {"id": rid, "model": "gpt-4o-mini", "prompt": prompt, "system": None, "prompt_json": "{}",
            "options_json": "{}", "response": answer, "response_json": "{}", "conversation_id": conv,
            "duration_ms": 900, "datetime_utc": at, "input_tokens": 12, "output_tokens": 30}


RECORDS = {"conversations": [{"id": "01jconv0000000000000000001", "name": "explain git rebase",
                              "model": "gpt-4o-mini"}],
           "responses": [_response("01jresp0000000000000000001", "01jconv0000000000000000001", "explain git rebase",
                                   "Rebase replays commits.", "2026-11-26T10:00:00.000000"),
                         _response("01jresp0000000000000000002", "01jconv0000000000000000001",
                                   "and interactive?", "It lets you edit them.", "2026-11-26T10:01:00.000000")]}
OTHER = {"conversations": [{"id": "01jconv0000000000000000002", "name": "the other question", "model": "gpt-4o-mini"}],
         "responses": [_response("01jresp0000000000000000003", "01jconv0000000000000000002", "the other question",
                                 "its answer", "2026-11-26T11:00:00.000000")]}

SAMPLE = Sample(
    "llm", RECORDS, "logs.db",
    Expect(["user", "assistant", "user", "assistant"], ["explain git rebase", "It lets you edit them."],
           usage={"prompt_tokens": 24, "completion_tokens": 60}),
    form="sqlite", schema=SCHEMA, import_file=True, other=OTHER, together=True,
    fields={"id": [("conversations", 0, "id"), ("responses", 0, "id")], "title": [("conversations", 0, "name")],
            "text": [("responses", 0, "prompt"), ("responses", 1, "response")],
            "time": [("responses", 0, "datetime_utc"), ("responses", 1, "datetime_utc")]})
