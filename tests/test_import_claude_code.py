"""conv import --from claude-code, on session files written by the real Claude
Code (installed from npm by the suite), pointed at the loopback fake of
Anthropic's API that answers as a model would: thinking, tool calls, text."""

import json
import shutil
import subprocess

import pytest
from anthropic_fake import AnthropicFake
from conftest import conv_env, fails, git, newest, ok

NOTES = "the build fails on arm64\n"
BIG = "".join(f"log line {n:04d}: all is well\n" for n in range(200))  # a tool result longer than the clip


@pytest.fixture
def project(tmp_path):
    where = tmp_path / "proj"
    where.mkdir()
    (where / "notes.txt").write_text(NOTES)
    (where / "build.log").write_text(BIG)
    git(where, "init", "-q", "-b", "feature")
    return where


class ClaudeCode:
    """The real Claude Code in ``project``, with its own HOME, asking the fake."""

    def __init__(self, binary, project, home, server):
        self.binary, self.project, self.server = binary, project, server
        self.env = conv_env({"HOME": str(home), "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-test",
                             "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"})
        self.sessions = home / ".claude" / "projects"

    def __call__(self, *args: str) -> str:
        done = subprocess.run([str(self.binary), "-p", *args], cwd=self.project, env=self.env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout


@pytest.fixture
def agent(claude_code, project, tmp_path):
    with AnthropicFake() as server:
        yield ClaudeCode(claude_code, project, tmp_path / "home", server)


def first_session(agent) -> None:
    """One question, answered after thinking and reading two files."""
    agent.server.script = [
        [{"type": "thinking", "thinking": "I should read the notes first."},
         {"type": "tool_use", "id": "toolu_01", "name": "Read",
          "input": {"file_path": str(agent.project / "notes.txt")}}],
        [{"type": "tool_use", "id": "toolu_02", "name": "Read",
          "input": {"file_path": str(agent.project / "build.log")}}],
        [{"type": "text", "text": "Your notes say the build fails on arm64; the log looks fine."}]]
    assert "arm64" in agent("what do my notes say?")


def imported(env: dict) -> dict:
    return json.loads(ok("import", "--from", "claude-code", "--json", env=env).stdout)


def test_a_session_becomes_turns_with_tool_calls_readable_and_thinking_kept_unsent(agent, fake, store_path):
    first_session(agent)
    done = imported({"HOME": agent.env["HOME"]})  # the default place: ~/.claude/projects
    assert (done["found"], done["added"], done["turns_added"], done["skipped"]) == (1, 1, 2, [])
    conv = newest()
    question, answer = conv["turns"]
    assert (question["role"], question["content"]) == ("user", "what do my notes say?")
    assert answer["role"] == "assistant" and answer["model"] == "claude-opus-5-5"
    assert answer["thinking"] == "I should read the notes first." and "I should read" not in answer["content"]
    body = answer["content"]
    assert f'```tool call: Read\n{{"file_path": "{agent.project / "notes.txt"}"}}\n```' in body
    assert "```tool result: Read\n" in body and "the build fails on arm64" in body
    assert body.endswith("Your notes say the build fails on arm64; the log looks fine.")
    assert "log line 0199" not in body and "more characters, kept whole beside this turn as Read-result-1.txt" in body
    kept, = answer["files"]
    assert kept["sent"] is False and kept["name"] == "Read-result-1.txt"
    # what Claude Code recorded of each of its three model calls, once each (it repeats it on every record)
    assert answer["usage"]["prompt_tokens"] >= 3 * 21 and answer["usage"]["completion_tokens"] > 0
    whole = git(store_path, "show",
                "HEAD:" + next(p for p in git(store_path, "ls-tree", "-r", "--name-only", "HEAD").split()
                               if p.endswith(kept["file"])))
    assert "log line 0199: all is well" in whole
    origin = json.loads(ok("list", "--json").stdout)[0]
    assert origin["title"] == "what do my notes say?"
    meta = git(store_path, "show",
               "HEAD:" + next(p for p in git(store_path, "ls-tree", "-r", "--name-only", "HEAD").split()
                              if p.endswith("conversation.md")))
    assert "source: claude-code" in meta and f'cwd: "{agent.project}"' in meta and "git_branch: feature" in meta
    git(store_path, "fsck", "--strict")

    ok("use", origin["id"])  # chosen (an import is never what -c continues unless chosen)
    ok("ask", "-c", "and what should I do?")
    sent = [m["content"] for m in fake.requests[-1]["messages"]]
    assert sent[0] == "what do my notes say?" and "```tool call: Read" in sent[1] and "the log looks fine" in sent[1]
    # thinking, whole output: kept, unsent
    assert all("I should read the notes" not in s and "log line 0199" not in s for s in sent)


def test_importing_again_adds_only_what_the_session_grew_by(agent, store_path):
    first_session(agent)
    env = {"CLAUDE_CONFIG_DIR": str(agent.sessions.parent)}  # the place Claude Code was told to use, else ~/.claude
    assert imported(env)["turns_added"] == 2
    head = git(store_path, "rev-parse", "HEAD")
    again = imported(env)
    assert (again["found"], again["unchanged_files"], again["turns_added"]) == (0, 1, 0)  # not even read
    assert git(store_path, "rev-parse", "HEAD") == head
    agent.server.script = [[{"type": "text", "text": "En français : la compilation échoue sur arm64."}]]
    agent("--continue", "and in French?")
    again = imported(env)
    # the same conversation, two turns longer
    assert (again["found"], again["added"], again["turns_added"]) == (1, 0, 2)
    conv = newest()
    assert [t["role"] for t in conv["turns"]] == ["user", "assistant", "user", "assistant"]
    assert conv["turns"][-1]["content"] == "En français : la compilation échoue sur arm64."
    assert len(json.loads(ok("list", "--json").stdout)) == 1


def test_a_rewound_line_becomes_a_fork_and_a_half_written_line_is_named(agent, tmp_path):
    first_session(agent)
    session, = agent.sessions.rglob("*.jsonl")
    records = [json.loads(line) for line in session.read_text().splitlines()]
    question = next(r for r in records if r.get("type") == "user" and isinstance(r["message"]["content"], str))
    # a second line from the first question, as a rewind in Claude Code writes it, then a line cut short
    again = dict(question, uuid="rewound-answer", parentUuid=question["uuid"], type="assistant",
                 timestamp="2099-01-01T00:00:00.000Z",
                 message={"role": "assistant", "model": "claude-opus-5-5",
                          "content": [{"type": "text", "text": "Another answer."}]})
    copy = tmp_path / "copy" / session.name
    copy.parent.mkdir()
    copy.write_text(session.read_text() + json.dumps(again) + '\n{"type": "user", "mess')
    done = json.loads(ok("import", "--from", "claude-code", "--json", str(copy.parent)).stdout)
    assert done["found"] == 2 and done["skipped"] == [f"1 record of {copy} left out: line {len(records) + 2} "
                                                      "is no JSON (half-written?)"]
    convs = {c["id"]: c for c in json.loads(ok("list", "--json").stdout)}
    fork = next(c for c in convs.values() if c["forked_from"])  # the line the rewind began; the first stays
    rewound = json.loads(ok("show", "--json", fork["id"]).stdout)
    assert [t["content"] for t in rewound["turns"]] == ["what do my notes say?", "Another answer."]
    first = json.loads(ok("show", "--json", fork["forked_from"]).stdout)["turns"]
    assert first[0]["name"] == rewound["turns"][0]["name"] and first[1]["content"].endswith("the log looks fine.")


def test_each_line_of_a_rewound_session_keeps_its_conversation_as_either_goes_on(agent, tmp_path):
    """Whichever line of a rewound session goes on (the one the rewind left
    too), its new turns join that line's conversation: never a copy of a line,
    never a line under another's name."""
    session = tmp_path / "s" / "s1.jsonl"
    session.parent.mkdir()
    base = {"sessionId": "s1", "cwd": "/p", "gitBranch": "main", "isSidechain": False}

    def said(uuid, parent, role, text, second):
        content = text if role == "user" else [{"type": "text", "text": text}]
        return {**base, "type": role, "uuid": uuid, "parentUuid": parent,
                "timestamp": f"2026-11-26T10:00:{second:02d}Z",
                "message": {"role": role, "content": content, **({"model": "m"} if role == "assistant" else {})}}

    def grow(*records):
        with session.open("a") as f:
            f.write("".join(json.dumps(r) + "\n" for r in records))
        return json.loads(ok("import", "--from", "claude-code", str(session.parent), "--json").stdout)

    grow(said("u0", None, "user", "first", 0), said("a0", "u0", "assistant", "one", 1),
         said("u1", "a0", "user", "second", 2), said("a1", "u1", "assistant", "two", 3),
         said("u1b", "a0", "user", "second, rewound", 4), said("a1b", "u1b", "assistant", "two again", 5))
    grown = grow(said("u2", "a1", "user", "third on the first line", 6), said("a2", "u2", "assistant", "three", 7))
    assert (grown["added"], grown["turns_added"], grown["forks"]) == (0, 2, [])
    grown = grow(said("u2b", "a1b", "user", "third on the rewound line", 8), said("a2b", "u2b", "assistant", "3", 9))
    assert (grown["added"], grown["turns_added"], grown["forks"]) == (0, 2, [])
    convs = json.loads(ok("list", "--json").stdout)
    assert len(convs) == 2
    texts = sorted([t["content"] for t in json.loads(ok("show", "--json", c["id"]).stdout)["turns"]] for c in convs)
    assert texts == [["first", "one", "second", "two", "third on the first line", "three"],
                     ["first", "one", "second, rewound", "two again", "third on the rewound line", "3"]]


def test_a_path_that_is_not_there_is_one_line(conv_home, tmp_path):
    line = fails("import", "--from", "claude-code", str(tmp_path / "nowhere"), code=2)
    assert "no such file or folder" in line and "~/.claude/projects" in line and "Traceback" not in line
    shutil.rmtree(tmp_path, ignore_errors=True)
