"""The agents as people use them: the real Claude Code and Codex TUIs in
tmux (agent_tuis.py), connected to conv, against the loopback fakes. The
first exchange is in the store before any second one is typed, on a busy
machine too; ``/compact`` goes on in the same conversation and ``/clear``
starts the next, neither leaving a line nobody typed as a question or a
title; ``/clear`` then ``/exit`` stores nothing; Codex's title thread is no
failure. Nothing false is said afterwards."""

import json
import os
import time
from pathlib import Path

from agent_tuis import ClaudeTUI, CodexTUI, busy, tui_env
from anthropic_fake import AnthropicFake
from conftest import git, ok
from responses_fake import ResponsesFake, message
from shells import Tmux
from test_capture_agents import stored
from test_import_codex import Codex


def settled_queue(within: float = 60) -> None:
    """Until the capture's queue is empty and its worker gone (its lock free)."""
    import fcntl

    folder = Path(os.environ["CONV_HOME"]) / "state" / "capture"
    deadline = time.monotonic() + within
    while True:
        queue = folder / "queue"
        if not (queue.exists() and any(queue.iterdir())):
            with open(folder / "lock", "a") as lock:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return
                except BlockingIOError:
                    pass
        assert time.monotonic() < deadline, "the capture did not finish"
        time.sleep(0.2)


def kept_to_say() -> str:
    """Everything the background kept to be said, told already or not."""
    folder = Path(os.environ["CONV_HOME"]) / "state" / "capture"
    told = folder / "told.json"
    pending = (folder / "to-say").read_text() if (folder / "to-say").exists() else ""
    return pending + (" ".join(json.loads(told.read_text())) if told.exists() else "")


def test_claude_code_tui_first_exchange_compact_clear_and_exit(claude_code, tmp_path, store_path):
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    git(project, "init", "-q")
    ok("connect", "claude-code", env={"HOME": str(home)})
    with AnthropicFake() as server, Tmux(tmp_path) as tmux:
        tui = ClaudeTUI(tmux, claude_code, project, home, server, tui_env())
        server.reply = "Rebase replays your commits onto another base."
        with busy():  # Claude Code writes its transcript late when the machine is busy
            tui.ask("explain git rebase", server.reply)
            first = stored(2)  # the first exchange, before a second is typed
        assert [t["content"] for t in first["turns"]] == ["explain git rebase", server.reply]
        assert "failed" not in ok("list").stderr.decode()

        server.reply = "Add -i to choose what happens to each commit."
        tui.ask("and interactive mode?", server.reply)
        stored(4)
        server.reply = "We talked about rebase and its interactive mode."  # the compaction's summary
        tui.command("/compact", r"Compacted")
        server.reply = "--autosquash folds fixup commits into their targets."
        tui.ask("what about autosquash?", server.reply)
        conv = stored(6)  # the same conversation, going on after the compaction
        assert conv["title"] == "explain git rebase"
        assert [t["content"] for t in conv["turns"] if t["role"] == "user"] == [
            "explain git rebase", "and interactive mode?", "what about autosquash?"]
        kept = {note["kind"]: note["text"] for note in conv["turns"][3]["injected"]}
        assert "compaction" in kept and "We talked about rebase" in kept["compaction summary"]
        assert "/compact" in kept["command"]

        files = len(list(tui.sessions.glob("*/*.jsonl")))
        tui.type_line("/clear")
        tui.pane.wait(lambda p: len(list(tui.sessions.glob("*/*.jsonl"))) > files, "a new session file", 30)
        server.reply = "A fresh start it is."
        tui.ask("start over: what is a reflog?", server.reply)
        listed = stored(2, conversations=2)
        assert listed[0]["title"] == "start over: what is a reflog?"
        fresh = json.loads(ok("show", listed[0]["id"], "--json").stdout)
        assert [t["content"] for t in fresh["turns"]] == ["start over: what is a reflog?", server.reply]
        assert "/clear" in json.dumps(fresh["turns"][0]["injected"])

        tui.type_line("/clear")  # then leave: nothing typed in that session
        time.sleep(1)
        tui.quit()
    settled_queue()
    assert len(json.loads(ok("list", "--json").stdout)) == 2
    said = ok("list").stderr.decode() + kept_to_say()
    assert "failed" not in said and "capturing" not in said, said
    found = json.loads(ok("search", "caveat", "--json").stdout)
    assert found == []  # what Claude Code wrote around /clear is no search hit
    git(store_path, "fsck", "--strict")


def test_codex_tui_is_captured_and_its_title_thread_is_no_failure(codex, tmp_path, store_path):
    project = tmp_path / "proj"
    project.mkdir()
    git(project, "init", "-q")
    with ResponsesFake() as server, Tmux(tmp_path) as tmux:
        agent = Codex(codex, project, tmp_path / "codex-home", server)  # its config.toml, pointing at the fake
        ok("connect", "codex", env={"CODEX_HOME": str(agent.home)})
        with CodexTUI(tmux, codex, project, agent.home, {**tui_env(), "FAKE_KEY": "sk-test"}) as tui:
            server.script = [[message("Rebase replays your commits.")], [message("Explain git rebase")]]
            tui.ask("explain git rebase", "Rebase replays your commits.")
            conv = stored(2)
            assert [t["content"] for t in conv["turns"]] == ["explain git rebase", "Rebase replays your commits."]
            assert [n["kind"] for n in conv["turns"][0]["injected"]] == ["environment"]  # Codex's, no question
            server.script = [[message("Add -i for interactive mode.")]]
            tui.ask("and interactive mode?", "Add -i for interactive mode.")
            stored(4)
            tui.quit()
    settled_queue()
    said = ok("list").stderr.decode() + kept_to_say()
    assert "rollout" not in said and "failed" not in said, said
    assert len(json.loads(ok("list", "--json").stdout)) == 1
