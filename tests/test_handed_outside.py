"""What conv hands outside the store, to an agent (conv mcp) or another tool's
session files (conv handoff), is masked by one rule, conv share's: secrets
conv knows, URL passwords, bearer tokens and what only looks like a key,
found after escape codes are taken out and before anything is cut. A
hand-off reads back as it was handed (two answers in a row, a question
Codex would take for its own context), many at once keep every record, and
a purge takes conv's session files with it. Dates at the calendar's ends
are dates."""

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import conv_env, git, ok
from test_importers import node
from test_mcp import Server, called

PROJ_KEY = "sk-proj-" + "Zq8Lm2Nx" * 6  # shaped like an OpenAI project key; conv does not know it as one of the user's
PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
       "-----END OPENSSH PRIVATE KEY-----")


def test_conv_mcp_masks_look_alikes_keys_broken_by_escape_codes_and_keys_across_the_cut(fake):
    coloured = "sk-proj-" + "\x1b[01;31m" + "Zq8Lm2Nx" * 6 + "\x1b[m"  # grep --color inside the key
    fake.reply = "x" * 3_990 + " " + PROJ_KEY + " the end"  # the key straddles show's 4,000-character cut
    ok("ask", "first")
    fake.reply = f"zanzibar: {coloured} and\n{PEM}\nand Authorization: Bearer abcdefghijklmnop123"
    ok("ask", "-n", "second")
    server = Server()
    hits, _ = called(server, 1, "search", query="zanzibar")
    shown, _ = called(server, 2, "show", id=hits[0]["id"])
    both = json.dumps([hits, shown])
    assert "Zq8Lm2Nx" not in both and "b3BlbnNzaC1" not in both and "abcdefghijklmnop123" not in both, both
    listed, _ = called(server, 3, "list")
    first = [c for c in listed if c["title"] == "first"][0]
    long, _ = called(server, 4, "show", id=first["id"])
    assert "Zq8L" not in json.dumps(long) and long["turns"][1]["content"].endswith("more characters]")
    server.close()


def chatgpt(path: Path) -> Path:
    """A ChatGPT export whose conversation answers twice in a row and holds a question that is one XML element."""
    mapping = {"r": node("r", None, ["q1"]),
               "q1": node("q1", "r", ["a1"], "user", "Which port?", 1000.0),
               "a1": node("a1", "q1", ["a2"], "assistant", "8443.", 1001.0, metadata={"model_slug": "gpt-4o"}),
               "a2": node("a2", "a1", ["q2"], "assistant", "Or 9443 for the admin UI.", 1002.0,
                          metadata={"model_slug": "gpt-4o"}),
               "q2": node("q2", "a2", ["a3"], "user", "<config>port: 8443</config>", 1003.0),
               "a3": node("a3", "q2", [], "assistant", "That config says 8443.", 1004.0,
                          metadata={"model_slug": "gpt-4o"})}
    path.write_text(json.dumps([{"conversation_id": "c-1", "title": "Ports", "create_time": 999.0,
                                 "current_node": "a3", "mapping": mapping}]))
    return path


@pytest.mark.parametrize("tool, home", [("claude-code", "CLAUDE_CONFIG_DIR"), ("codex", "CODEX_HOME")])
def test_a_handed_off_import_comes_back_once_however_it_reads_back(tool, home, tmp_path, monkeypatch):
    monkeypatch.setenv(home, str(tmp_path / tool))
    ok("import", "--from", "chatgpt", str(chatgpt(tmp_path / "conversations.json")))
    conv = json.loads(ok("list", "--json").stdout)[0]["id"]
    ok("handoff", conv, "--to", tool, cwd=tmp_path)
    for _ in range(2):
        ok("import", "--from", tool)
    assert len(json.loads(ok("list", "--json").stdout)) == 1
    assert len(json.loads(ok("show", conv, "--json").stdout)["turns"]) == 5


def test_a_handoff_masks_keys_passwords_and_bearer_tokens_and_says_so(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    coloured = "sk-ant-api03-\x1b[31mAbCdEfGhIjKlMnOp\x1b[0mQrStUvWxYz0123456789abcdefGHIJKLmnop-AAAA"
    emphasised = "sk-proj-**Zy**XwVuTsRqPoNmLkJiHgFeDcBa9876543210zyxwvu"
    fake.reply = (f"Use https://deploy:s3cretpass@git.example.com and {PROJ_KEY}; "
                  f"send Authorization: Bearer zyx987654321abc; {coloured} {emphasised}")
    ok("ask", "how do I deploy?")
    done = subprocess.run([sys.executable, "-m", "conv", "handoff", "--to", "claude-code"], capture_output=True,
                          env=conv_env(), cwd=tmp_path)
    assert done.returncode == 0
    written = "".join(p.read_text() for p in (tmp_path / "claude" / "projects").rglob("*.jsonl"))
    assert "s3cretpass" not in written and "Zq8Lm2Nx" not in written and "zyx987654321abc" not in written
    assert "AbCdEfGhIjKlMnOp" not in written and "XwVuTsRqPoNm" not in written
    assert "***" in written and "how do I deploy?" in written
    assert "masked as ***" in done.stderr.decode()


def test_a_purge_takes_the_session_files_conv_handed_off(fake, tmp_path, monkeypatch, store_path):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    fake.reply = "Rotate it every 90 days."
    ok("ask", "how often should the key rotate?")
    conv = json.loads(ok("list", "--json").stdout)[0]["id"]
    ok("handoff", conv, "--to", "codex", cwd=tmp_path)
    assert list((tmp_path / "codex").rglob("*.jsonl"))
    ok("delete", conv)
    ok("clean", "--purge", "--yes")
    assert not list((tmp_path / "codex").rglob("*.jsonl"))
    assert json.loads(ok("list", "--json").stdout) == []
    assert "rotate" not in git(store_path, "log", "-p", "--all")


def test_thirty_hand_offs_at_once_are_all_remembered(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    fake.reply = "An answer."
    ok("ask", "a question")
    conv = json.loads(ok("list", "--json").stdout)[0]["id"]

    def hand(_):
        return subprocess.run([sys.executable, "-m", "conv", "handoff", conv, "--to", "codex"], cwd=tmp_path,
                              capture_output=True, env=conv_env(), timeout=120).returncode

    with ThreadPoolExecutor(10) as pool:
        assert set(pool.map(hand, range(30))) == {0}
    remembered = json.loads((Path(conv_env()["CONV_HOME"]) / "state" / "handoffs.json").read_text())
    assert len(remembered) == 30
    ok("import", "--from", "codex")
    assert len(json.loads(ok("list", "--json").stdout)) == 1


@pytest.mark.parametrize("since", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"])
def test_since_at_the_calendars_ends_is_a_date_on_the_command_line_and_for_an_agent(fake, since):
    ok("ask", "a question")
    expected = 0 if since.startswith("9999") else 1
    assert len(json.loads(ok("list", "--since", since, "--json").stdout)) == expected
    server = Server()
    found, error = called(server, 1, "list", since=since)
    assert not error and len(found) == expected
    server.close()


def test_conv_mcps_search_never_finds_what_it_masks(fake):
    """Else it is an oracle: an agent could spell a masked secret out, a prefix at a time."""
    fake.reply = ("deploy notes: https://alice:hunter2pass@git.example.com/x and AKIAIOSFODNN7EXAMPLE and "
                  f"{PROJ_KEY} end")
    ok("ask", "zanzibar deployment")
    server = Server()
    assert called(server, 1, "search", query="zanzibar")[0] != []
    for n, probe in enumerate(("hunter2pas*", "hunter2pass", "akiaiosf*", "AKIAIOSFODNN7EXAMPLE", "Zq8Lm2Nx*",
                               PROJ_KEY, "alice"), 2):
        assert called(server, n, "search", query=probe)[0] == [], probe
    server.close()
