"""conv import --from gptme, on a conversation the real gptme (from the
package index) wrote while pointed at the loopback fake, run as its users run
it without a terminal (``-n``: it nudges the model with ``<system>`` messages
until it stops), then resumed."""

import json
import os
import subprocess

from conftest import git, newest, ok, pip_tools


def gptme(binary, home, url, *args: str) -> None:
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CONFIG_HOME": str(home / "config"),
           "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": url,
           # gptme fetches a tokenizer file from the internet: refused at once, as offline, not after DNS retries (6 s)
           "HTTPS_PROXY": "http://127.0.0.1:9", "NO_PROXY": "127.0.0.1,localhost"}
    env.pop("GPTME_LOGS_HOME", None)
    done = subprocess.run([str(binary), "-n", "-t", "none", "-m", "openai/gpt-4o-mini", "--name", "rebase", *args],
                          cwd=home, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_a_gptme_conversation_becomes_turns_and_grows_on_resume(tmp_path, fake, store_path):
    binary = pip_tools("gptme")["gptme"]
    home = tmp_path / "gptme-home"
    home.mkdir()
    fake.set(reply="ECHO")
    gptme(binary, home, fake.url, "what is a rebase?")

    env = {"XDG_DATA_HOME": str(home / "data"), "HOME": str(home)}  # found as gptme finds it; its ~ is this HOME
    done = json.loads(ok("import", "--from", "gptme", "--json", env=env).stdout)
    assert (done["found"], done["added"], done["turns_added"], done["skipped"]) == (1, 1, 2, [])
    question, answer = newest()["turns"]
    assert question["content"] == "what is a rebase?"  # gptme's hidden prompt and context are left out
    assert answer["model"] == "openai/gpt-4o-mini" and answer["content"].startswith("what is a rebase?")
    assert "```gptme: user\n<system>No tool call detected" in answer["content"]  # its nudge: not the user typing
    assert question["created"] < answer["created"]
    meta = git(store_path, "show",
               "HEAD:" + next(p for p in git(store_path, "ls-tree", "-r", "--name-only", "HEAD").split()
                              if p.endswith("conversation.md")))
    assert "source: gptme" in meta and f'cwd: "{home}"' in meta

    gptme(binary, home, fake.url, "-r", "and a merge?")
    again = json.loads(ok("import", "--from", "gptme", "--json", env=env).stdout)
    assert (again["added"], again["turns_added"]) == (0, 2)
    turns = newest()["turns"]
    assert ([t["role"] for t in turns] == ["user", "assistant", "user", "assistant"]
            and turns[2]["content"] == "and a merge?")
    ok("ask", "--cid", newest()["id"], "thanks")  # chosen: goes on with conv's own model
    assert [m["content"] for m in fake.requests[-1]["messages"]][:1] == ["what is a rebase?"]
    git(store_path, "fsck", "--strict")
