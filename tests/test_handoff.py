"""conv handoff: a conversation carried on in the real Claude Code and Codex
(against the loopback fakes): the tool sends the earlier turns to its model
in order, and, connected, what it says next comes back into the same conv
conversation; what the tool's format cannot hold is said."""

import json
import time

import pytest
from anthropic_fake import AnthropicFake
from conftest import fails, git, newest, ok, run_conv
from responses_fake import ResponsesFake, message
from test_import_claude_code import ClaudeCode
from test_import_codex import Codex

QUESTIONS = ["which port does the API listen on?", "and the admin UI?"]


@pytest.fixture
def asked(fake):
    """A conversation of two exchanges, with a system prompt; its id."""
    fake.reply = "It listens on 8443."
    ok("ask", "-s", "Answer tersely.", QUESTIONS[0])
    fake.reply = "The admin UI is on 9443."
    ok("ask", "-c", QUESTIONS[1])
    return json.loads(ok("list", "--json").stdout)[0]["id"]


def came_back(conv_id: str, within: float = 30) -> list:
    """The conversation's turns once the tool's two new ones are in (the capture runs in the background)."""
    deadline = time.monotonic() + within
    while len(turns := json.loads(ok("show", conv_id, "--json").stdout)["turns"]) < 7:  # system, 2 × 2, 2 new
        assert time.monotonic() < deadline, turns
        time.sleep(0.2)
    assert [t["role"] for t in turns] == ["system", "user", "assistant", "user", "assistant", "user", "assistant"]
    return turns


def test_claude_code_resumes_what_conv_handed_it_and_its_answer_comes_back(claude_code, asked, tmp_path, store_path):
    project = tmp_path / "proj"
    project.mkdir()
    home = tmp_path / "user"
    env = {"HOME": str(home)}
    ok("connect", "claude-code", env=env)
    done = run_conv("handoff", "--to", "claude-code", env=env, cwd=project)
    assert done.returncode == 0, done.stderr
    resume = done.stdout.decode().split()
    assert resume[:2] == ["claude", "--resume"] and len(resume) == 3
    assert "not in the session: its system prompt" in done.stderr.decode()
    with AnthropicFake() as server:
        server.script = [[{"type": "text", "text": "Both sit behind the proxy on 443."}]]
        ClaudeCode(claude_code, project, home, server)("--resume", resume[2], "and behind the proxy?")
        sent = [m for m in server.requests[-1]["messages"] if m["role"] in ("user", "assistant")]
    texts = [m["content"] if isinstance(m["content"], str) else
             " ".join(b.get("text", "") for b in m["content"] if isinstance(b, dict)) for m in sent]
    assert texts[0] == QUESTIONS[0] and "8443" in texts[1] and texts[2] == QUESTIONS[1] and "9443" in texts[3]
    assert "and behind the proxy?" in texts[-1]

    conv = came_back(asked)
    assert [t["content"] for t in conv[-2:]] == ["and behind the proxy?", "Both sit behind the proxy on 443."]
    assert len(json.loads(ok("list", "--json").stdout)) == 1  # the same conversation, not a new one
    git(store_path, "fsck", "--strict")


def test_codex_resumes_what_conv_handed_it_and_its_answer_comes_back(codex, asked, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    with ResponsesFake() as server:
        agent = Codex(codex, project, tmp_path / "codex-home", server)
        env = {"CODEX_HOME": str(agent.home)}
        ok("connect", "codex", env=env)
        done = run_conv("handoff", asked[:6], "--to", "codex", env=env, cwd=project)
        resume = done.stdout.decode().split()
        assert resume[:2] == ["codex", "resume"], done.stderr
        rollout = next(agent.home.glob(f"sessions/*/*/*/rollout-*-{resume[2]}.jsonl"))
        meta = json.loads(rollout.read_text().splitlines()[0])["payload"]
        assert meta["model_provider"] == "fake"  # the TUI refuses to resume a rollout of another provider
        server.script = [[message("Both sit behind the proxy on 443.")]]
        agent("resume", resume[2], "and behind the proxy?")
        sent = [(i["role"], i["content"][0]["text"]) for i in server.requests[-1]["input"]
                if i.get("type") == "message" and i["role"] in ("user", "assistant")]
    sent = [(role, text) for role, text in sent if not text.startswith("<")]  # Codex's own context messages
    assert sent[:4] == [("user", QUESTIONS[0]), ("assistant", "It listens on 8443."), ("user", QUESTIONS[1]),
                        ("assistant", "The admin UI is on 9443.")]
    assert sent[-1] == ("user", "and behind the proxy?")
    conv = came_back(asked)
    assert [t["content"] for t in conv[-2:]] == ["and behind the proxy?", "Both sit behind the proxy on 443."]


def test_a_conversation_that_went_on_in_conv_meanwhile_gets_the_tools_line_as_a_fork(asked, fake, tmp_path):
    from conv.home import handoffs

    ok("handoff", "--to", "codex", env={"CODEX_HOME": str(tmp_path / "codex")})
    fake.reply = "On 8080 in development."
    ok("ask", "-c", "and in development?")
    rollout = next((tmp_path / "codex" / "sessions").glob("*/*/*/*.jsonl"))
    session = rollout.stem[-36:]
    assert handoffs.find("codex", session)["conv"] == asked
    with open(rollout, "a") as more:  # what Codex appends as it goes on
        for role, kind, text in (("user", "input_text", "and behind the proxy?"),
                                 ("assistant", "output_text", "443.")):
            more.write(json.dumps({"timestamp": "2026-11-27T00:00:00.000Z", "type": "response_item",
                                   "payload": {"type": "message", "role": role,
                                               "content": [{"type": kind, "text": text}]}}) + "\n")
    done = json.loads(ok("import", "--from", "codex", str(rollout), "--json").stdout)
    assert done["added"] == 0 and len(done["forks"]) == 1
    mine = json.loads(ok("show", asked, "--json").stdout)["turns"]
    assert [t["content"] for t in mine[-2:]] == ["and in development?", "On 8080 in development."]


def test_what_cannot_be_handed_off_is_one_line(asked, tmp_path):
    assert "conv hands off to no tool called 'windsurf'" in fails("handoff", "--to", "windsurf", code=2)
    assert "no conversation matches" in fails("handoff", "zzzzzz", "--to", "codex")


def test_a_long_folder_is_named_as_claude_code_names_it(claude_code, asked, tmp_path):
    project = tmp_path.joinpath(*["a-folder-whose-name-is-long-" + "x" * 20] * 5)  # over 200 characters, mangled
    project.mkdir(parents=True)
    home = tmp_path / "user"
    done = run_conv("handoff", "--to", "claude-code", env={"HOME": str(home)}, cwd=project)
    session = done.stdout.decode().split()[-1]
    with AnthropicFake() as server:
        server.script = [[{"type": "text", "text": "On 443."}]]
        ClaudeCode(claude_code, project, home, server)("--resume", session, "and behind the proxy?")
        assert QUESTIONS[0] in json.dumps(server.requests[-1]["messages"])


def test_a_folder_the_tool_cannot_write_or_a_folder_gone_is_one_line(asked, tmp_path, monkeypatch):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where Codex's folder would be")
    said = fails("handoff", "--to", "codex", env={"CODEX_HOME": str(blocked)})
    assert "cannot write the codex session" in said and "CODEX_HOME" in said
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    assert "the current folder is gone" in fails("handoff", "--to", "claude-code", env={"HOME": str(tmp_path)})


def test_claude_codes_own_stand_in_for_an_answer_is_no_answer(tmp_path):
    session = tmp_path / "s.jsonl"
    base = {"sessionId": "s1", "cwd": "/p", "timestamp": "2026-11-26T10:00:00.000Z", "parentUuid": None}
    session.write_text("\n".join(json.dumps(r) for r in [
        {**base, "type": "user", "uuid": "u1", "message": {"role": "user", "content": "only a question"}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "timestamp": "2026-11-26T10:00:01.000Z",
         "message": {"role": "assistant", "model": "<synthetic>",
                     "content": [{"type": "text", "text": "No response requested."}]}}]) + "\n")
    ok("import", "--from", "claude-code", str(session))
    assert [t["role"] for t in newest()["turns"]] == ["user"]


def test_an_answer_that_failed_is_not_handed_off_and_is_said(fake, tmp_path):
    fake.reply = "It listens on 8443."
    ok("ask", QUESTIONS[0])
    fake.mode = "cut"  # the answer breaks off on its way
    run_conv("ask", "-c", QUESTIONS[1])
    done = run_conv("handoff", "--to", "codex", env={"CODEX_HOME": str(tmp_path / "codex")})
    assert done.returncode == 0 and "not in the session: 1 answer that failed" in done.stderr.decode()
    rollout = next((tmp_path / "codex" / "sessions").glob("*/*/*/*.jsonl")).read_text().splitlines()
    assert [json.loads(r)["payload"].get("role") for r in rollout[1:]] == ["user", "assistant", "user"]


def test_what_would_act_on_a_terminal_is_not_handed_off(fake, tmp_path):
    """Found by a new user: an answer holding escape sequences (conv show strips them) was written into the
    agent's session as it was, and Copilot CLI, resuming it, coloured the terminal."""
    fake.reply = "It is \x1b[31mred\x1b[0m and \x1b]0;pwned\x07done."
    ok("ask", "what colour?")
    done = run_conv("handoff", "--to", "codex", env={"CODEX_HOME": str(tmp_path / "codex")})
    assert done.returncode == 0 and "masked" not in done.stderr.decode()  # nothing looked like a key
    rollout = next((tmp_path / "codex" / "sessions").glob("*/*/*/*.jsonl")).read_text()
    assert "It is red and done." in json.loads(rollout.splitlines()[-1])["payload"]["content"][0]["text"]
    assert "\\u001b" not in rollout and "\x1b" not in rollout and "\\u0007" not in rollout
