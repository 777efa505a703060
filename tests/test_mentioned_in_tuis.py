"""A past conversation mentioned by name, as a person types it: ``@conv:``
then the conversation's resource (conv mcp's, which ``conv connect``
registers), in Claude Code's and Gemini CLI's TUIs (their @ menus list them)
and in Gemini CLI's -p; its words reach the model request the loopback fake
logs, masked as conv share masks a page."""

import json
import os
import re
import time

from agent_tuis import ClaudeTUI, GeminiTUI, tui_env
from anthropic_fake import AnthropicFake
from conftest import git, ok
from gemini_fake import GeminiFake
from shells import Timeout, Tmux
from test_gemini import THEIRS, Gemini

DECIDED = "We settled on three retries with exponential backoff, capped at 30 seconds."


def mention_from_the_menu(tui, conv_id: str) -> None:
    """``@conv:`` typed, the conversation's resource waited for in the TUI's @ menu (a busy machine connects
    the MCP server late: the menu is asked again, as a person would), then its URI typed after it."""
    tui.pane.type("what did we decide in @conv:")
    for _ in range(12):
        try:
            tui.pane.wait_text(re.escape(f"conv:conv://{conv_id}"), timeout=10)
            break
        except Timeout:
            tui.pane.key("BSpace")
            tui.pane.type(":")
    else:
        raise AssertionError(f"no conv resource in the @ menu:\n{tui.pane.screen()}")
    tui.pane.type(f"conv://{conv_id}")


def test_claude_code_attaches_a_conversation_mentioned_with_at(claude_code, fake, tmp_path, store_path):
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    git(project, "init", "-q")
    fake.reply = DECIDED + " Ask bob.smith@contoso.com."
    ok("ask", "what retry policy did we settle on for the uploader?")
    conv_id = json.loads(ok("list", "--json").stdout)[0]["id"]
    ok("connect", "claude-code", env={"HOME": str(home), "PATH": f"{claude_code.parent}:{os.environ['PATH']}"})
    with AnthropicFake() as server, Tmux(tmp_path) as tmux:
        tui = ClaudeTUI(tmux, claude_code, project, home, server, tui_env())
        server.reply = "Three retries, then."
        mention_from_the_menu(tui, conv_id)
        tui.ask(" ", server.reply)
        sent = json.dumps([r.get("messages") for r in server.requests])
        tui.quit()
    assert DECIDED in sent.replace("\\\\", "\\") and "contoso" not in sent


def test_gemini_cli_attaches_a_conversation_mentioned_with_at(gemini, fake, tmp_path, store_path):
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(THEIRS)  # an API key's login
    fake.reply = DECIDED + " Ask bob.smith@contoso.com."
    ok("ask", "what retry policy did we settle on for the uploader?")
    conv_id = json.loads(ok("list", "--json").stdout)[0]["id"]
    ok("connect", "gemini", env={"HOME": str(home)})
    with GeminiFake(reply="Three retries, then.") as server:
        agent = Gemini(gemini, project, home, server)
        assert "Three retries" in agent("-p", f"what did we decide in @conv:conv://{conv_id} ?")  # headless: -p
        sent = json.dumps([r["body"].get("contents") for r in server.requests])
    assert DECIDED in sent.replace("\\\\", "\\") and "contoso" not in sent


def test_gemini_clis_tui_attaches_a_conversation_mentioned_with_at(gemini, fake, tmp_path, store_path):
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(THEIRS)
    fake.reply = DECIDED + " Ask bob.smith@contoso.com."
    ok("ask", "what retry policy did we settle on for the uploader?")
    conv_id = json.loads(ok("list", "--json").stdout)[0]["id"]
    ok("connect", "gemini", env={"HOME": str(home)})
    with GeminiFake(reply="Three retries, then.") as server, Tmux(tmp_path) as tmux:
        tui = GeminiTUI(tmux, gemini, project, home, server, tui_env())
        mention_from_the_menu(tui, conv_id)
        tui.ask(" ?", "Three retries, then.")
        sent = json.dumps([r["body"].get("contents") for r in server.requests])
        tui.quit()
    assert DECIDED in sent.replace("\\\\", "\\") and "contoso" not in sent


def test_an_older_claude_code_reads_the_conversation_mentioned(claude_code_old, fake, tmp_path, store_path):
    """Claude Code 1.0 (still run): its @ menu lists files only, but a typed @conv:conv://ID is read."""
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    git(project, "init", "-q")
    fake.reply = DECIDED + " Ask bob.smith@contoso.com."
    ok("ask", "what retry policy did we settle on for the uploader?")
    conv_id = json.loads(ok("list", "--json").stdout)[0]["id"]
    ok("connect", "claude-code", env={"HOME": str(home), "PATH": f"{claude_code_old.parent}:{os.environ['PATH']}"})
    with AnthropicFake() as server, Tmux(tmp_path) as tmux:
        tui = ClaudeTUI(tmux, claude_code_old, project, home, server, tui_env())
        server.reply = "Three retries, then."
        time.sleep(3)  # its MCP servers connect after the prompt shows
        tui.pane.type(f"what did we decide in @conv:conv://{conv_id} ?")
        time.sleep(2)  # keys arriving with Enter read as a paste in 1.0: Enter on its own
        tui.pane.key("Enter")
        tui.pane.wait_text("Read MCP resource", timeout=60)
        tui.pane.wait_text(re.escape(server.reply), timeout=60)
        sent = json.dumps([r.get("messages") for r in server.requests])
        tui.quit()
    assert DECIDED in sent.replace("\\\\", "\\") and "contoso" not in sent
