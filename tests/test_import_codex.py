"""conv import --from codex, on rollout files written by the real Codex CLI
(installed from npm by the suite), pointed at a loopback fake of OpenAI's
Responses API (responses_fake.py) that answers with reasoning, a tool call
Codex really runs, and text."""

import json
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import conv_env, git, newest, ok
from responses_fake import ResponsesFake, message

NOTES = "the build fails on arm64\n"


class Codex:
    """The real Codex in ``project``, with its own CODEX_HOME, asking the fake."""

    def __init__(self, binary, project, home, server):
        self.binary, self.project, self.home, self.server = binary, project, home, server
        home.mkdir()
        (home / "config.toml").write_text(
            'model = "gpt-test"\nmodel_provider = "fake"\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "{server.url}/v1"\nwire_api = "responses"\nenv_key = "FAKE_KEY"\n')
        self.env = conv_env({"CODEX_HOME": str(home), "FAKE_KEY": "sk-test"})

    def __call__(self, *args: str) -> str:
        done = subprocess.run([str(self.binary), "exec", "--skip-git-repo-check", "-s", "read-only", *args],
                              cwd=self.project, env=self.env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=180)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout


@pytest.fixture
def agent(codex, tmp_path):
    # Codex's read-only sandbox mounts a /dev of its own, so a project under
    # /dev/shm (where tests/run puts the tests' folders) is empty to what it runs.
    with tempfile.TemporaryDirectory(prefix="conv-codex-", dir="/var/tmp") as outside, ResponsesFake() as server:
        project = Path(outside) / "proj"
        project.mkdir()
        (project / "notes.txt").write_text(NOTES)
        git(project, "init", "-q", "-b", "feature")
        yield Codex(codex, project, tmp_path / "codex-home", server)


def test_a_codex_session_becomes_turns_and_grows_on_resume(agent, fake, store_path):
    agent.server.script = [
        [{"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "I should read the notes."}]},
         {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "exec_command",
          "arguments": json.dumps({"cmd": "cat notes.txt"})}],
        [message("Your notes say the build fails on arm64.")]]
    assert "arm64" in agent("what do my notes say?")
    sent_back = [i for i in agent.server.requests[1]["input"] if i.get("type") == "function_call_output"]
    assert sent_back, agent.server.requests[1]["input"][-3:]

    env = {"CODEX_HOME": str(agent.home)}
    done = json.loads(ok("import", "--from", "codex", "--json", env=env).stdout)
    assert (done["found"], done["added"], done["turns_added"], done["skipped"]) == (1, 1, 2, [])
    question, answer = newest()["turns"]
    assert question["content"] == "what do my notes say?"  # not Codex's own context messages
    assert answer["thinking"] == "I should read the notes." and answer["model"] == "gpt-test"
    assert '```tool call: exec_command\n{"cmd": "cat notes.txt"}\n```' in answer["content"]
    assert "```tool result: exec_command\n" in answer["content"] and "the build fails on arm64" in answer["content"]
    assert answer["content"].endswith("Your notes say the build fails on arm64.")
    assert answer["usage"] == {"prompt_tokens": 2 * 10, "cache_write_tokens": 0, "cache_read_tokens": 0,
                               "completion_tokens": 2 * 5, "reasoning_tokens": 0}  # token_count, a model call each
    assert answer["commands"] == [{"command": "cat notes.txt", "tool": "exec_command"}]  # what it ran, as data
    meta = git(store_path, "show",
               "HEAD:" + next(p for p in git(store_path, "ls-tree", "-r", "--name-only", "HEAD").split()
                              if p.endswith("conversation.md")))
    assert "source: codex" in meta and f'cwd: "{agent.project}"' in meta

    agent.server.script = [[message("En français : la compilation échoue sur arm64.")]]
    agent("resume", "--last", "and in French?")
    again = json.loads(ok("import", "--from", "codex", "--json", env=env).stdout)
    assert (again["added"], again["turns_added"]) == (0, 2)
    turns = newest()["turns"]
    assert [t["content"] for t in turns[2:]] == ["and in French?", "En français : la compilation échoue sur arm64."]
    ok("ask", "--cid", newest()["id"], "thanks")  # chosen: goes on with conv's own model
    assert fake.requests[-1]["messages"][0]["content"] == "what do my notes say?"
    git(store_path, "fsck", "--strict")


def test_an_older_codexs_token_count_written_again_is_counted_once(tmp_path):
    """Codex before token_usage_record said each model call's tokens in a token_count event, and writes the
    same count again (a screen's refresh, a fork replaying its parent: its total unchanged, ccusage #1288)."""
    def counted(total_in, total_cached, total_out, last_in, last_cached, last_out):
        def tokens(inp, cached, out):
            return {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out,
                    "reasoning_output_tokens": 0, "total_tokens": inp + out}
        return {"type": "token_count", "info": {"total_token_usage": tokens(total_in, total_cached, total_out),
                                                "last_token_usage": tokens(last_in, last_cached, last_out)}}

    records = [("session_meta", {"id": "019a0000-0000-7000-8000-00000000000c", "cwd": str(tmp_path)}),
               ("turn_context", {"model": "gpt-5-codex"}),
               ("response_item", {"type": "message", "role": "user", "content": [
                   {"type": "input_text", "text": "list the files"}]}),
               ("event_msg", counted(5000, 4000, 300, 5000, 4000, 300)),
               ("event_msg", counted(11000, 9000, 350, 6000, 5000, 50)),
               ("event_msg", counted(11000, 9000, 350, 6000, 5000, 50)),  # the same again
               ("response_item", {"type": "message", "role": "assistant", "content": [
                   {"type": "output_text", "text": "Two files."}]})]
    rollout = tmp_path / "rollout-2026-11-20T10-00-00-019a0000-0000-7000-8000-00000000000c.jsonl"
    rollout.write_text("".join(json.dumps({"timestamp": f"2026-11-20T10:00:0{n}.000Z", "type": kind,
                                           "payload": payload}) + "\n" for n, (kind, payload) in enumerate(records)))
    ok("import", "--from", "codex", str(rollout))
    (listed,) = json.loads(ok("list", "--json").stdout)
    answer = json.loads(ok("show", listed["id"], "--json").stdout)["turns"][1]
    assert answer["usage"] == {"prompt_tokens": 2000, "cache_write_tokens": 0, "cache_read_tokens": 9000,
                               "completion_tokens": 350, "reasoning_tokens": 0}
