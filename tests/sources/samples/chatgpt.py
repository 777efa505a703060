"""A ChatGPT data export's conversations.json: a conversation a mapping of
nodes, its current_node the line shown. Two conversations in one export: the
other must survive whatever the first holds."""

from sample import Expect, Sample


def _conversation(cid, question, answer, title="Rebase"):
    return {"id": cid, "title": title, "create_time": 1764151200.0, "update_time": 1764151300.0,
            "current_node": "n3", "mapping": {
                "n1": {"id": "n1", "parent": None, "children": ["n2"], "message": None},
                "n2": {"id": "n2", "parent": "n1", "children": ["n3"], "message": {
                    "id": "n2", "author": {"role": "user"}, "create_time": 1764151201.0,
                    "content": {"content_type": "text", "parts": [question]}, "metadata": {}}},
                "n3": {"id": "n3", "parent": "n2", "children": [], "message": {
                    "id": "n3", "author": {"role": "assistant"}, "create_time": 1764151202.0,
                    "content": {"content_type": "text", "parts": [answer]}, "metadata": {"model_slug": "gpt-4o"},
                    "recipient": "all"}}}}


RECORDS = [_conversation("c0a1b2c3-0000", "explain git rebase", "Rebase replays commits.")]
OTHER = [_conversation("c0a1b2c3-1111", "the other question", "its answer", "the other question")]

SAMPLE = Sample(
    "chatgpt", RECORDS, "conversations.json",
    Expect(["user", "assistant"], ["explain git rebase", "Rebase replays commits."]),
    form="json", import_file=True, other=OTHER, together=True,
    fields={"id": [(0, "id"), (0, "mapping", "n2", "message", "id")], "title": [(0, "title")],
            "text": [(0, "mapping", "n2", "message", "content", "parts", 0),
                     (0, "mapping", "n3", "message", "content", "parts", 0)],
            "time": [(0, "create_time"), (0, "mapping", "n3", "message", "create_time")],
            "cycle": [((0, "mapping", "n2", "parent"), "n3")]})
