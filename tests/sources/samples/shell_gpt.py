"""shell-gpt 1.5's chat cache: a chat a file, a JSON list of messages (its
tool calls and their results among them), no ids and no times."""

from sample import Expect, Sample

RECORDS = [{"role": "system", "content": "You are ShellGPT"}, {"role": "user", "content": "list files"},
           {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {
               "name": "execute_shell_command", "arguments": "{\"shell_command\": \"ls\"}"}}]},
           {"role": "tool", "tool_call_id": "c1", "content": "a.txt"}, {"role": "assistant", "content": "One: a.txt"}]
OTHER = [{"role": "user", "content": "the other question"}, {"role": "assistant", "content": "its answer"}]

SAMPLE = Sample(
    "shell-gpt", RECORDS, "chat_cache/chat1", Expect(["system", "user", "assistant"], ["list files", "One: a.txt"]),
    form="json", other=OTHER, other_layout="chat_cache/chat2", import_at="chat_cache",
    fields={"text": [(1, "content"), (4, "content")], "input": [(2, "tool_calls", 0, "function", "arguments")]})
