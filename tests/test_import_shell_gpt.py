"""conv import --from shell-gpt, on chats the real sgpt (shell-gpt from the
package index, with click, which it imports and does not declare) wrote while
pointed at the loopback fake (API_BASE_URL), with a CHAT_CACHE_LENGTH of 6
so that it drops a chat's oldest messages as it does past 100."""

import json
import os
import subprocess

import pytest
from conftest import git, newest, ok, pip_tools
from real_tools import ToolRuns

SGPT_COMMAND = """if 1:
    import typer
    from sgpt.app import main
    app = typer.Typer(add_completion=False)
    app.command()(main)
    command = typer.main.get_command(app)  # what sgpt's entry point, typer.run(main), runs
"""


class Sgpt:
    """The real sgpt with a HOME of its own, asking the fake; its first run
    writes ~/.config/shell_gpt/.sgptrc with the chat folder in it. Runs go to
    one sgpt process (real_tools.ToolRuns), started at the first."""

    def __init__(self, binary, home, url, out):
        self.binary, self.home, self.chats = binary, home, home / "chats"
        self.env = {**os.environ, "HOME": str(home), "OPENAI_API_KEY": "sk-test", "API_BASE_URL": url,
                    "DEFAULT_MODEL": "gpt-4o-mini", "PRETTIFY_MARKDOWN": "false", "SHELL": "/bin/bash",
                    "CHAT_CACHE_PATH": str(self.chats), "CHAT_CACHE_LENGTH": "6"}
        self.runs = ToolRuns(binary.parent / "python", SGPT_COMMAND, "sgpt", self.env, out)

    def __call__(self, *args: str) -> None:
        self.runs(*args)

    def once(self, *args: str) -> None:
        """sgpt ARGS as a process of its own."""
        done = subprocess.run([str(self.binary), *args], env=self.env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr[-2000:]

    def imported(self) -> dict:
        """conv import with sgpt's HOME and no CHAT_CACHE_PATH: the folder is found in .sgptrc."""
        return json.loads(ok("import", "--from", "shell-gpt", "--json", env={"HOME": str(self.home)}).stdout)


@pytest.fixture(scope="session")
def sgpt_bin():
    return pip_tools("sgpt")["sgpt"]


@pytest.fixture
def sgpt(sgpt_bin, tmp_path, fake, monkeypatch):
    monkeypatch.delenv("CHAT_CACHE_PATH", raising=False)
    fake.set(reply="ECHO")
    sgpt = Sgpt(sgpt_bin, tmp_path / "sgpt-home", fake.url, tmp_path / "sgpt.out")
    with sgpt.runs:
        yield sgpt


def shown(short: str | None = None) -> list[tuple[str, str]]:
    turns = (json.loads(ok("show", short, "--json").stdout) if short else newest())["turns"]
    return [(t["role"], t["content"]) for t in turns]


def test_chats_become_conversations_and_grow_past_what_sgpt_forgot(sgpt, fake, store_path):
    sgpt("--chat", "notes", "what is a rebase?")
    sgpt("--chat", "notes", "and a merge?")
    sgpt("--chat", "cmds", "--shell", "--no-interaction", "list big files")
    (sgpt.chats / "broken").write_text('[{"role": "user", "content": "half')  # as sgpt leaves it mid-write

    done = sgpt.imported()
    assert (done["found"], done["added"], done["turns_added"]) == (2, 2, 8)  # 1 + 4, 1 + 2
    assert done["skipped"] == [f"{sgpt.chats / 'broken'}: not read: not JSON (unterminated string starting at, "
                               "line 1)"]
    listed = {c["title"]: c["short"] for c in json.loads(ok("list", "--json").stdout)}
    notes = shown(listed["what is a rebase?"])
    assert [r for r, _ in notes] == ["system", "user", "assistant", "user", "assistant"]
    assert "ShellGPT" in notes[0][1] and notes[1:] == [("user", "what is a rebase?"),
                                                        ("assistant", "what is a rebase?"),
                                                        ("user", "and a merge?"), ("assistant", "and a merge?")]
    assert "Shell Command Generator" in shown(listed["list big files"])[0][1]

    sgpt("--chat", "notes", "which is safer?")
    sgpt("--chat", "notes", "thanks")  # sgpt now keeps the role and the last six: the first question is gone
    kept = json.loads((sgpt.chats / "notes").read_text())
    assert kept[0]["role"] == "system" and kept[1]["content"] == "and a merge?"

    again = sgpt.imported()
    assert (again["added"], again["turns_added"], again["unchanged_files"]) == (0, 4, 1)
    notes = shown(listed["what is a rebase?"])
    assert [c for _, c in notes[1::2]] == ["what is a rebase?", "and a merge?", "which is safer?", "thanks"]
    times = [t["created"] for t in json.loads(ok("show", listed["what is a rebase?"], "--json").stdout)["turns"]]
    assert times == sorted(times) and len(set(times)) == len(times)

    assert sgpt.imported()["turns_added"] == 0  # nothing new: nothing added
    ok("ask", "-c", listed["what is a rebase?"], "one more")  # goes on with conv's own model
    assert [m["content"] for m in fake.requests[-1]["messages"]][1:3] == ["what is a rebase?", "what is a rebase?"]
    git(store_path, "fsck", "--strict")


def test_a_chat_begun_afresh_under_its_name_is_a_conversation_of_its_own(sgpt):
    sgpt("--chat", "temp", "first chat")
    assert sgpt.imported()["added"] == 1
    sgpt("--chat", "temp", "second chat")  # sgpt empties "temp" at every start
    assert sgpt.imported()["added"] == 1
    sgpt("--chat", "work", "third chat")
    sgpt.imported()
    (sgpt.chats / "work").unlink()  # the user cleared it
    sgpt("--chat", "work", "fourth chat")
    assert sgpt.imported()["added"] == 1
    sgpt("--chat", "work", "goes on")
    grown = sgpt.imported()
    assert (grown["added"], grown["turns_added"]) == (0, 2)
    titles = {c["title"]: c["short"] for c in json.loads(ok("list", "--json").stdout)}
    assert sorted(titles) == ["first chat", "fourth chat", "second chat", "third chat"]
    assert [c for _, c in shown(titles["fourth chat"])[1::2]] == ["fourth chat", "goes on"]
    assert [c for _, c in shown(titles["third chat"])[1::2]] == ["third chat"]


def test_a_function_call_is_kept_readable_in_the_answer(sgpt, fake):
    sgpt.once("--install-functions")  # sgpt's own execute_shell_command (read as sgpt starts: a process first)
    fake.set(reply="The command printed it.",
             tool_call=("execute_shell_command", json.dumps({"shell_command": "echo hi-from-tool"})))
    sgpt("--chat", "tools", "say hi through the shell")
    assert fake.requests[-1]["messages"][-1]["role"] == "tool"  # sgpt ran it and sent its output back

    assert sgpt.imported()["turns_added"] == 3
    system, question, answer = (t for _, t in shown())
    assert question == "say hi through the shell"
    assert '```tool call: execute_shell_command\n{"shell_command": "echo hi-from-tool"}\n```' in answer
    assert "```tool result: execute_shell_command\nExit code: 0, Output:\nhi-from-tool" in answer
    assert answer.endswith("The command printed it.")
