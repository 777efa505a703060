"""aider, the real one (installed from PyPI by the suite), against the
loopback OpenAI fake: each of its runs in a work tree is a chat of that
tree's ``.aider.chat.history.md``, imported as one conversation with its
question, its answer (an edit aider applied too) and its model; aider's own
lines (its banner, tokens, edits applied, a /command) are kept with the
turn, never a question; a later run adds one conversation, nothing twice;
deleting the file changes nothing."""

import json
import os
import re
import subprocess

import pytest
from conftest import FakeServer, git, ok, pip_tools, run_conv

from conv import importers, sources

EDIT = """I will change the greeting.

greet.py
```python
<<<<<<< SEARCH
    return "hi"
=======
    return "hello, world"
>>>>>>> REPLACE
```
"""
FLAGS = ("--model", "openai/fake-model", "--openai-api-key", "sk-fake", "--yes-always", "--no-check-update",
         "--no-show-model-warnings", "--analytics-disable", "--no-show-release-notes", "--no-pretty",
         "--no-auto-commits")


@pytest.fixture(scope="session")
def aider_binary():
    return pip_tools("aider")["aider"]


def aider(binary, project, home, server, *args: str) -> str:
    caches = home / ".aider" / "caches"  # what aider knows of the model, so that it fetches nothing from GitHub
    caches.mkdir(parents=True, exist_ok=True)
    (caches / "model_prices_and_context_window.json").write_text(json.dumps({"openai/fake-model": {
        "max_input_tokens": 128000, "max_output_tokens": 4096, "input_cost_per_token": 1e-6,
        "output_cost_per_token": 2e-6, "litellm_provider": "openai", "mode": "chat"}}))
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CONV_"))},
           "HOME": str(home), "PWD": str(project)}
    done = subprocess.run([str(binary), *FLAGS, "--openai-api-base", server.url, *args], cwd=project, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def test_aider_runs_are_imported_a_chat_each_once_with_its_edit(aider_binary, tmp_path, store_path):
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    git(project, "init", "-q")
    (project / "greet.py").write_text('def greet():\n    return "hi"\n')
    git(project, "add", "greet.py")
    git(project, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "greet")
    with FakeServer(reply="It is 4.") as server:
        aider(aider_binary, project, home, server, "--message", "what is 2+2?")
        server.set(reply=EDIT)
        aider(aider_binary, project, home, server, "--edit-format", "diff", "greet.py", "--message",
              "change the greeting to hello, world")
    assert 'return "hello, world"' in (project / "greet.py").read_text()  # aider applied the answer's edit

    said = ok("import", "--from", "aider", str(project)).stdout.decode()
    every = {c["title"]: c for c in json.loads(ok("list", "--json").stdout)}
    assert set(every) == {"what is 2+2?", "change the greeting to hello, world"}, said
    first = json.loads(ok("show", every["what is 2+2?"]["id"], "--json").stdout)
    assert [t["content"] for t in first["turns"]] == ["what is 2+2?", "It is 4."]
    assert first["turns"][1]["model"] == "openai/fake-model" and first["imported_from"]["cwd"] == str(project)
    report = next(n["text"] for n in first["turns"][1]["injected"] if "Tokens:" in n["text"])  # aider's words, aside
    sent, received, cost = re.search(r"Tokens: (\d+) sent, (\d+) received\. Cost: \$([\d.]+) message", report).groups()
    assert first["turns"][1]["usage"] == {"prompt_tokens": int(sent), "completion_tokens": int(received),
                                          "cost": float(cost)}, report
    edit = json.loads(ok("show", every["change the greeting to hello, world"]["id"], "--json").stdout)["turns"][1]
    assert edit["content"] == EDIT.strip() and any("Applied edit to greet.py" in n["text"] for n in edit["injected"])

    with FakeServer(reply="Six.") as server:
        aider(aider_binary, project, home, server, "--message", "and 3+3?")
    again = json.loads(ok("import", "--from", "aider", str(project), "--json").stdout)
    assert (again["added"], again["turns_added"]) == (1, 2), again
    head = git(store_path, "rev-parse", "HEAD")
    (project / ".aider.chat.history.md").unlink()
    assert git(store_path, "rev-parse", "HEAD") == head and len(json.loads(ok("list", "--json").stdout)) == 3
    git(store_path, "fsck", "--strict")


CHAT = """
# aider chat started at 2026-11-28 19:36:14

> /usr/bin/aider --model x --message First line
second line of the command, unmarked
> Aider v0.86.2
> Model: openai/x with diff edit format

#### what does greet do?~
#### and why?~

<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>

It returns hi.

</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>

It says hi.

> Tokens: 2.5k sent, 34 received.
> Commit 0713cd6 feat: greet
with a body line

#### /tokens~

> Approximate context window usage
""".replace("~", "  ")  # aider ends a line it writes with Markdown's line break


def test_what_aider_wrote_itself_is_kept_with_its_turn_and_never_a_question(tmp_path):
    history = tmp_path / ".aider.chat.history.md"
    history.write_text(CHAT + CHAT.replace("19:36:14", "19:40:00").replace("what does greet do?", "again?"))
    (conv, later) = importers.read(sources.source("aider").reader(), history).conversations
    assert [(t.role, t.content) for t in conv.turns] == [("user", "what does greet do?\nand why?"),
                                                         ("assistant", "It says hi.")]
    assert conv.turns[1].thinking == "It returns hi." and conv.model == "openai/x"
    assert [n["kind"] for n in conv.turns[0].injected] == ["aider"]  # the banner, its unmarked line too
    assert "second line of the command" in conv.turns[0].injected[0]["text"]
    assert [n["kind"] for n in conv.turns[1].injected] == ["aider", "command", "aider"]
    assert "with a body line" in conv.turns[1].injected[0]["text"]
    assert later.turns[0].content == "again?\nand why?" and later.source_id != conv.source_id
    assert conv.turns[1].usage == {"prompt_tokens": 2500, "completion_tokens": 34}  # "2.5k sent": as precise as said


def test_aiders_token_report_is_the_answers_usage_in_its_classes(tmp_path):
    history = tmp_path / ".aider.chat.history.md"
    history.write_text(CHAT.replace("> Tokens: 2.5k sent, 34 received.",
                                    "> Tokens: 15k sent, 1.2k cache write, 12k cache hit, 345 received.\n"
                                    "> Cost: $0.0042 message, $0.01 session."))
    (conv,) = importers.read(sources.source("aider").reader(), history).conversations
    assert conv.turns[1].usage == {"prompt_tokens": 1800, "cache_write_tokens": 1200, "cache_read_tokens": 12000,
                                   "completion_tokens": 345, "cost": 0.0042}
    history.write_text(CHAT.replace("> Tokens: 2.5k sent, 34 received.",  # a call aider made again (a reflection)
                                    "> Tokens: 500 sent, 10 received. Cost: $0.50 message, $0.50 session.\n"
                                    "> Tokens: 700 sent, 20 received. Cost: $0.70 message, $1.20 session."))
    (conv,) = importers.read(sources.source("aider").reader(), history).conversations
    assert conv.turns[1].usage == {"prompt_tokens": 1200, "completion_tokens": 30, "cost": 1.2}


def test_a_hostile_history_is_read_as_far_as_it_can_be(tmp_path, conv_home):
    cases = {"garbage": b"\x00\xff" * 50_000, "no chat": b"#### a question with no chat around it\n",
             "bad date": b"# aider chat started at 2026-13-45 99:99:99\n\n#### hi\n\nhello\n",
             "nothing typed": b"# aider chat started at 2026-11-28 10:00:00\n\n> Aider v0.86.2\n",
             "deep": b"# aider chat started at 2026-11-28 10:00:00\n\n#### " + b"[" * 200_000 + b"\n\n" + b"{" * 9999}
    for what, data in cases.items():
        folder = tmp_path / what.replace(" ", "-")
        folder.mkdir()
        (folder / ".aider.chat.history.md").write_bytes(data)
        done = run_conv("import", "--from", "aider", str(folder), timeout=60)
        assert b"Traceback" not in done.stderr, (what, done.stderr)
        assert done.returncode == (0 if what in ("bad date", "deep") else 1), (what, done.stderr)
    titles = {c["title"][:10] for c in json.loads(ok("list", "--json").stdout)}
    assert titles == {"hi", "[" * 10}
