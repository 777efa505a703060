"""aider 0.86's chat history (read from the real one's): a chat a start
line, its banner, the question (####), the model's answer holding a
SEARCH/REPLACE edit under the file's name, and aider's word that it applied
it. Two chats in one file: the other must survive whatever the first holds."""

from sample import Expect, Sample

EDIT = ("fetch.py\n```python\n<<<<<<< SEARCH\n    return get(url)\n=======\n    return get(url, timeout=10)\n"
        ">>>>>>> REPLACE\n```\n")
RECORDS = [{"started": "2026-11-26 10:00:00", "text": (
    "\n> aider v0.86.2\n> Model: openai/gpt-4.1 with diff edit format\n> Git repo: .git with 3 files\n\n"
    "#### make fetch time out after 10 s  \n\nI'll add a timeout.\n\n" + EDIT +
    "\n> Tokens: 2.5k sent, 120 received.\n> Applied edit to fetch.py\n> Commit 1a2b3c4 feat: timeout\n")}]
OTHER = [{"started": "2026-11-26 11:00:00", "text": "\n#### the other question  \n\nits answer\n"}]

SAMPLE = Sample(
    "aider", RECORDS, "proj/.aider.chat.history.md",
    Expect(["user", "assistant"], ["make fetch time out after 10 s", "I'll add a timeout."],
           edits=[("fetch.py", "replace")]),
    form="markdown", import_file=True, other=OTHER, together=True,
    times=("9999-12-31 23:59:59", "0001-01-01 00:00:00", "2026-02-30 25:61:61"),
    fields={"text": [(0, "text")], "time": [(0, "started")]})
