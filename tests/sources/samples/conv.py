"""conv's own JSON export (conv export --format json): conversations with
their turns, names and fields kept. Two in one export: the other must
survive whatever the first holds."""

from sample import Expect, Sample

T0 = "2026-11-26T10:00:00.000Z"


def _conversation(cid, question, title="t"):
    return {"id": cid, "title": title, "created": T0, "tags": ["a"], "status": "done", "turns": [
        {"name": "20261126-100000.000-aaaa-user", "role": "user", "content": question, "created": T0},
        {"name": "20261126-100001.000-bbbb-assistant", "role": "assistant", "content": "hello",
         "created": "2026-11-26T10:00:01.000Z", "usage": {"prompt_tokens": 3, "completion_tokens": 1},
         "files": [{"name": "a.txt", "type": "text/plain", "data_base64": "aGk="}]}]}


RECORDS = [_conversation("k3f9x2ab7q4m", "hi")]
OTHER = [_conversation("k3f9x2ab7q5n", "the other question", "the other question")]

SAMPLE = Sample(
    "conv", RECORDS, "export.json", Expect(["user", "assistant"], ["hi", "hello"],
                                           usage={"prompt_tokens": 3, "completion_tokens": 1}),
    form="json", import_file=True, other=OTHER, together=True,
    fields={"title": [(0, "title")], "text": [(0, "turns", 0, "content"), (0, "turns", 1, "content")],
            "time": [(0, "created"), (0, "turns", 1, "created")]})
