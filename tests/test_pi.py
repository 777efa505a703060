"""pi, the real one (installed from npm by the suite), against the loopback
OpenAI fake: its sessions, continued, with a tool call, a model switched and
a branch made in the file (what its /tree does), are imported as pi wrote
them, once; the branch is a fork; its own entries (a compaction's summary)
are never a question; deleting its files changes nothing."""

import json
import shutil

from conftest import FakeServer, conv_env, git, ok
from real_tools import AGENTS_HOME, Headless
from test_capture_agents import stored

from conv import importers, sources

# what pi's /tree does, through its SDK (the TUI's own call): go back to the first answer and ask again there
BRANCH = """import { AuthStorage, createAgentSession, ModelRegistry, SessionManager }
  from "@mariozechner/pi-coding-agent";
const manager = SessionManager.open(process.argv[2]);
const auth = AuthStorage.create();
const { session } = await createAgentSession({ sessionManager: manager, authStorage: auth,
  modelRegistry: ModelRegistry.create(auth), cwd: process.argv[3] });
const first = manager.getEntries().find(e => e.type === "message" && e.message.role === "assistant");
await session.navigateTree(first.id, {});
await session.prompt("and on another branch?");
session.dispose();
"""


class Pi(Headless):
    """The real pi in ``project``, with its own HOME, asking ``server`` (offline: nothing sent anywhere else)."""

    def __init__(self, binary, project, home, server):
        self.binary, self.project = binary, project
        agent = home / ".pi" / "agent"
        agent.mkdir(parents=True, exist_ok=True)
        (agent / "models.json").write_text(json.dumps({"providers": {"fake": {
            "baseUrl": server.url, "api": "openai-completions", "apiKey": "sk-fake",
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [{"id": "fake-model", "name": "Fake Model"}]}}}))
        (agent / "settings.json").write_text(json.dumps({"defaultProvider": "fake", "defaultModel": "fake-model"}))
        self.env = conv_env({"HOME": str(home), "PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1",
                             "PI_TELEMETRY": "0"})



def test_pi_sessions_a_tool_call_and_a_branch_are_imported_once_the_branch_a_fork(pi, tmp_path, store_path):
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    with FakeServer(reply="It is 4.") as server:
        agent = Pi(pi, project, home, server)
        agent("-p", "what is 2+2?")
        server.set(reply="And 3+3 is 6.")
        agent("-c", "-p", "and 3+3?")
        (session,) = (home / ".pi" / "agent" / "sessions").glob("*/*.jsonl")
        script = AGENTS_HOME / "pi-branch.mjs"  # beside pi's package, where node finds it
        script.write_text(BRANCH)
        server.set(reply="On this branch: 4 still.")
        agent.run("node", str(script), str(session), str(project))
        server.set(tool_call=("bash", json.dumps({"command": "echo tool-ran"})), reply="It printed tool-ran.")
        agent("-p", "run echo for me")

    said = ok("import", "--from", "pi", env={"HOME": str(home)}).stdout.decode()
    every = json.loads(ok("list", "--json").stdout)
    (fork,) = [c for c in every if c["forked_from"]]
    listed = {c["title"]: c for c in every if not c["forked_from"]}
    assert set(listed) == {"what is 2+2?", "run echo for me"} and len(every) == 3, (said, every)
    assert fork["forked_from"] == listed["what is 2+2?"]["id"]
    first = json.loads(ok("show", listed["what is 2+2?"]["id"], "--json").stdout)
    assert [t["content"] for t in first["turns"]] == ["what is 2+2?", "It is 4.", "and 3+3?", "And 3+3 is 6."]
    assert first["turns"][1]["model"] == "fake-model" and first["turns"][1]["usage"]["prompt_tokens"] > 0
    assert first["imported_from"]["source"] == "pi" and first["imported_from"]["cwd"] == str(project)
    branch = json.loads(ok("show", fork["id"], "--json").stdout)
    assert [t["content"] for t in branch["turns"]][2:] == ["and on another branch?", "On this branch: 4 still."]
    tool = json.loads(ok("show", listed["run echo for me"]["id"], "--json").stdout)["turns"][1]["content"]
    assert "```tool call: bash" in tool and "tool-ran" in tool and tool.endswith("It printed tool-ran.")

    again = json.loads(ok("import", "--from", "pi", "--json", env={"HOME": str(home)}).stdout)
    assert (again["added"], again["turns_added"]) == (0, 0), again
    head = git(store_path, "rev-parse", "HEAD")
    shutil.rmtree(home / ".pi")
    assert git(store_path, "rev-parse", "HEAD") == head and json.loads(ok("list", "--json").stdout) == every
    assert {c["source"] for c in json.loads(ok("list", "--source", "pi", "--json").stdout)} == {"pi"}
    git(store_path, "fsck", "--strict")


def entry(n: int, parent: int | None, **kind) -> dict:
    return {"id": f"e{n}", "parentId": f"e{parent}" if parent is not None else None,
            "timestamp": f"2026-11-28T10:00:{n:02d}.000Z", **kind}


def test_what_pi_wrote_itself_is_kept_with_its_turn_and_its_name_is_the_title(tmp_path):
    session = tmp_path / "--w--" / "2026-11-28T10-00-00-000Z_s1.jsonl"
    session.parent.mkdir()
    lines = [{"type": "session", "version": 3, "id": "s1", "cwd": "/w", "timestamp": "2026-11-28T10:00:00.000Z"},
             entry(1, None, type="model_change", provider="fake", modelId="m"),
             entry(2, 1, type="message", message={"role": "user", "content": [{"type": "text", "text": "hi"}]}),
             entry(3, 2, type="message", message={"role": "assistant", "model": "m", "content": [
                 {"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "hello"}],
                 "usage": {"input": 7, "output": 2, "cacheRead": 3}}),
             entry(4, 3, type="session_info", name="Greetings"),
             entry(5, 4, type="compaction", summary="they said hi", firstKeptEntryId="e1"),
             entry(6, 5, type="message", message={"role": "bashExecution", "command": "ls", "output": "a b"}),
             entry(7, 6, type="message", message={"role": "user", "content": "and now?"}),
             entry(8, 7, type="message", message={"role": "assistant", "content": "now this", "model": "m"})]
    session.write_text("".join(json.dumps(line) + "\n" for line in lines))
    (conv,) = importers.read(sources.source("pi").reader(), session).conversations
    assert conv.title == "Greetings" and conv.origin == {"cwd": "/w"}
    assert [(t.role, t.content) for t in conv.turns] == [("user", "hi"), ("assistant", "hello"),
                                                         ("user", "and now?"), ("assistant", "now this")]
    assert conv.turns[1].thinking == "hmm" and conv.turns[1].usage == {
        "prompt_tokens": 7, "cache_write_tokens": 0, "cache_read_tokens": 3, "completion_tokens": 2}
    assert [n["kind"] for n in conv.turns[1].injected] == ["compaction summary", "shell command"]


def test_after_conv_connect_pi_each_run_is_captured_by_its_extension_with_what_it_wrote(pi, tmp_path, monkeypatch):
    """conv's extension (conv connect pi) hands each run to conv as it ends: no conv command typed, once; the
    file pi's write tool made is the answer's edit; --remove takes the extension out."""
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    with FakeServer(reply="Wrote it.") as server:
        agent = Pi(pi, project, home, server)  # (its folder made first: conv connect passes over a tool not there)
        said = ok("connect", "pi").stdout.decode()
        extension = home / ".pi" / "agent" / "extensions" / "conv-capture.ts"
        assert f"pi: connected: conv's hook added to {extension}" in said and extension.is_file()
        server.set(tool_call=("write", json.dumps({"path": str(project / "hi.txt"), "content": "hi\n"})))
        agent("-p", "write hi.txt")
        conv = stored(2)
        assert (project / "hi.txt").read_text() == "hi\n"
        assert [(e["path"], e["kind"]) for e in conv["turns"][1]["edits"]] == [(str(project / "hi.txt"), "write")]
        assert conv["imported_from"]["source"] == "pi" and conv["turns"][1]["content"].endswith("Wrote it.")
        server.set(tool_call=None, reply="It is 4.")
        agent("-c", "-p", "and 2+2?")
        conv = stored(4)
    ok("connect", "pi", "--remove")
    assert not extension.exists()
