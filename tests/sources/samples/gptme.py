"""gptme 0.35's logs: a conversation a folder, its conversation.jsonl a
message a line (what the tools printed as system messages); its tools
called as fenced blocks in the answer (save, patch, shell)."""

from sample import Expect, Sample

ANSWER = ("hello\n\n```save hello.py\nprint('hi')\n```\n\n```patch hello.py\n<<<<<<< ORIGINAL\nprint('hi')\n"
          "=======\nprint('hello')\n>>>>>>> UPDATED\n```\n\n```shell\npython hello.py\n```")  # its tools, as blocks
RECORDS = [{"role": "user", "content": "hi", "timestamp": "2026-11-26T10:00:00"},
           {"role": "assistant", "content": ANSWER, "timestamp": "2026-11-26T10:00:01", "metadata": {"model": "m"}},
           {"role": "system", "content": "tool output", "timestamp": "2026-11-26T10:00:02"}]
OTHER = [{"role": "user", "content": "the other question", "timestamp": "2026-11-26T11:00:00"}]

SAMPLE = Sample(
    "gptme", RECORDS, "logs/2026-11-26-chat1/conversation.jsonl",
    Expect(["user", "assistant"], ["hi", "hello"], edits=[("hello.py", "write"), ("hello.py", "replace")],
           commands=["python hello.py"]),
    other=OTHER, other_layout="logs/2026-11-26-chat2/conversation.jsonl",
    import_at="logs", fields={"text": [(0, "content"), (1, "content")], "time": [(0, "timestamp"), (1, "timestamp")]})
