"""Qwen Code, the real one (installed from npm by the suite), against the
loopback OpenAI fake: after ``conv connect qwen`` its runs, a resume and a
tool call are in the store with no conv command typed, once; conv mcp,
written into the same settings file, answers it; its own files deleted
change nothing; ``--remove`` gives the settings back byte for byte. Its
records that nobody typed (a slash command, a compression's summary) are
never a question."""

import json
import shutil
import time

from conftest import FakeServer, conv_env, fails, git, ok
from real_tools import Headless
from test_capture_agents import stored

from conv import importers, sources

# the user's settings as Qwen Code writes them itself (it migrates any other layout to this one at its start)
THEIRS = json.dumps({"model": {"name": "qwen3-coder"}, "mcpServers": {"docs": {"command": "docs-mcp"}}, "$version": 4},
                    indent=2) + "\n"


class Qwen(Headless):
    """The real Qwen Code in ``project``, with its own HOME, asking ``server`` (nothing sent anywhere else)."""

    def __init__(self, binary, project, home, server):
        self.binary, self.project = binary, project
        self.env = conv_env({"HOME": str(home), "OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-fake",
                             "OPENAI_MODEL": "fake-model", "QWEN_USAGE_STATISTICS_ENABLED": "false"})


def test_qwen_runs_a_resume_and_a_tool_call_are_captured_once_and_conv_mcp_answers_it(qwen_code, tmp_path,
                                                                                      store_path):
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    (project / "notes.txt").write_text("the build fails on arm64\n")
    settings = home / ".qwen" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(THEIRS)
    said = ok("connect", "qwen", env={"HOME": str(home)}).stdout.decode()
    assert f"qwen: connected: conv's hook added to {settings}" in said and "Stop, SessionEnd" in said
    assert "conv mcp is its MCP server (mcpServers.conv in settings.json)" in said
    written = json.loads(settings.read_text())
    assert written["mcpServers"]["docs"] == {"command": "docs-mcp"} and written["model"] == {"name": "qwen3-coder"}
    timeouts = {h["timeout"] for event in ("Stop", "SessionEnd") for entry in written["hooks"][event]
                for h in entry["hooks"]}
    assert timeouts == {10_000}  # 10 s read as milliseconds by every Qwen Code (0.15's 10 ms killed the hook)

    with FakeServer(reply="Your notes say the build fails on arm64.") as server:
        agent = Qwen(qwen_code, project, home, server)
        server.set(tool_call=("read_file", json.dumps({"file_path": str(project / "notes.txt")})))
        assert "arm64" in agent("-p", "what do my notes say?")
        conv = stored(2)
        question, answer = conv["turns"]
        assert question["content"] == "what do my notes say?"
        assert answer["model"] == "qwen3-coder"  # the model its settings name
        assert "```tool call: read_file" in answer["content"] and "```tool result: read_file" in answer["content"]
        assert answer["content"].endswith("Your notes say the build fails on arm64.")
        assert conv["imported_from"]["source"] == "qwen" and conv["imported_from"]["cwd"] == str(project)

        server.set(tool_call=None, reply="En français : la compilation échoue sur arm64.")
        agent("--continue", "-p", "and in French?")
        conv = stored(4)
        assert [t["content"] for t in conv["turns"][2:]] == ["and in French?",
                                                             "En français : la compilation échoue sur arm64."]
        # a new session asks conv mcp, through Qwen Code's own tool_call (as it reaches every MCP tool)
        server.set(tool_call=("tool_call", json.dumps({"name": "mcp__conv__search",
                                                        "arguments": {"query": "arm64"}})),
                   reply="You asked about arm64 before.")
        agent("-p", "what did I ask before?", "--allowed-tools", "mcp__conv__search")
        handed = [m for r in server.requests for m in r.get("messages", []) if m.get("role") == "tool"]
        assert conv["id"] in json.dumps(handed), handed

    both = stored(2, conversations=2)
    searched = json.loads(ok("show", both[0]["id"], "--json").stdout)["turns"][1]["content"]
    assert "tool call: mcp__conv__search" in searched and conv["id"] not in searched  # conv's own answer kept aside
    head = git(store_path, "rev-parse", "HEAD")
    shutil.rmtree(home / ".qwen" / "projects")
    assert json.loads(ok("list", "--json").stdout) == both and git(store_path, "rev-parse", "HEAD") == head
    assert {c["source"] for c in json.loads(ok("list", "--source", "qwen", "--json").stdout)} == {"qwen"}
    git(store_path, "fsck", "--strict")

    ok("connect", "qwen", "--remove", env={"HOME": str(home)})
    assert settings.read_text() == THEIRS


def records(*kinds: dict) -> list[dict]:
    """Qwen Code's records, chained, as 0.24.4 writes them."""
    out, parent = [], None
    for n, kind in enumerate(kinds):
        uuid = f"r{n}"
        out.append({"uuid": uuid, "parentUuid": parent, "sessionId": "s1", "cwd": "/w",
                    "timestamp": f"2026-11-28T10:00:{n:02d}.000Z", **kind})
        parent = uuid
    return out


def user(text: str, provenance: str = "real_user") -> dict:
    return {"type": "user", "provenance": provenance, "message": {"role": "user", "parts": [{"text": text}]}}


def model(text: str) -> dict:
    return {"type": "assistant", "model": "qwen3", "message": {"role": "model", "parts": [{"text": text}]},
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "thoughtsTokenCount": 1}}


def system(subtype: str, payload: dict) -> dict:
    return {"type": "system", "subtype": subtype, "systemPayload": payload}


def test_what_qwen_code_wrote_itself_is_kept_with_its_turn_and_never_a_question(tmp_path):
    session = tmp_path / "chats" / "s1.jsonl"
    session.parent.mkdir()
    session.write_text("".join(json.dumps(r) + "\n" for r in records(
        user("why is the build red?"),
        system("ui_telemetry", {"uiEvent": {"event.name": "qwen-code.api_response"}}),
        {**model("A missing header."), "message": {"role": "model", "parts": [
            {"text": "Look at the log first.", "thought": True}, {"text": "A missing header."}]}},
        system("slash_command", {"phase": "invocation", "rawCommand": "/compress"}),
        system("slash_command", {"phase": "result", "rawCommand": "/compress"}),
        system("chat_compression", {"compressedHistory": [
            {"role": "user", "parts": [{"text": "<summary>the build, a header</summary>"}]},
            {"role": "model", "parts": [{"text": "Got it."}]}]}),
        user("a memory note", provenance="memory_extractor"),
        user("and the fix?"), model("Add the include."))))
    read = importers.read(sources.source("qwen").reader(), session)
    (conv,) = read.conversations
    assert [(t.role, t.content) for t in conv.turns] == [
        ("user", "why is the build red?"), ("assistant", "A missing header."),
        ("user", "and the fix?"), ("assistant", "Add the include.")]
    assert conv.turns[1].thinking == "Look at the log first."
    assert conv.turns[1].usage == {"prompt_tokens": 10, "cache_write_tokens": 0, "cache_read_tokens": 0,
                                   "completion_tokens": 3, "reasoning_tokens": 1}
    assert [n["kind"] for n in conv.turns[1].injected] == ["command", "compaction summary", "memory extractor"]
    assert conv.turns[1].injected[0]["text"] == "/compress" and "a header" in conv.turns[1].injected[1]["text"]
    assert read.said == [], read.said


def test_a_session_with_only_qwen_codes_own_records_is_no_conversation(tmp_path):
    session = tmp_path / "s2.jsonl"
    session.write_text("".join(json.dumps(r) + "\n" for r in records(
        system("slash_command", {"phase": "invocation", "rawCommand": "/clear"}))))
    assert importers.read(sources.source("qwen").reader(), session).conversations == []


def test_a_conversation_handed_to_qwen_code_is_resumed_by_it_and_comes_back_once(qwen_code, fake, tmp_path,
                                                                                 monkeypatch):
    ok("ask", "remember: my name is Zed")
    home, project = tmp_path / "user", tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    handed = json.loads(ok("handoff", "--to", "qwen", "--json", env={"HOME": str(home)}).stdout)
    assert handed["resume"][:2] == ["qwen", "--resume"]
    with FakeServer(reply="Your name is Zed.") as server:
        Qwen(qwen_code, project, home, server)("--resume", handed["session"], "-p", "what is my name?")
        sent = server.requests[-1]["messages"]
    assert any("my name is Zed" in json.dumps(m) for m in sent if m["role"] == "user")
    ok("import", "--from", "qwen", env={"HOME": str(home)})
    (conv,) = json.loads(ok("list", "--json").stdout)
    assert conv["turns"] == 4


def test_an_answer_of_the_same_words_as_an_earlier_one_is_waited_for_after_the_question(tmp_path):
    """The TUI's Stop hook may run before the answer is written (seen by a new user): an earlier answer
    of the same words does not make the session settled, or the store would lag one answer behind."""
    session = tmp_path / "s1.jsonl"
    lines = records(user("one"), model("Same."), user("two"))
    session.write_text("".join(json.dumps(r) + "\n" for r in lines))
    hook = sources.source("qwen").hook()
    job = hook.job({"transcript_path": str(session), "cwd": "/w", "last_assistant_message": "Same."})
    assert not hook.settled(job, str(session))
    with open(session, "a") as more:
        more.write(json.dumps(records(user("one"), model("Same."), user("two"), model("Same."))[-1]) + "\n")
    assert hook.settled(job, str(session))


def test_a_question_with_an_at_file_is_typed_as_it_was_and_the_files_text_kept_beside_it(tmp_path):
    """Qwen Code appends the text of a question's @file to it, in parts of their own (as its readManyFiles
    writes them); the file's whole text was stored as the question."""
    asked = {"type": "user", "provenance": "real_user", "message": {"role": "user", "parts": [
        {"text": "what does @notes.txt say?"}, {"text": "\n--- Content from referenced files ---"},
        {"text": "\nContent from @notes.txt:\n"}, {"text": "the build fails on arm64\n"},
        {"text": "\n--- End of content ---"}]}}
    session = tmp_path / "s1.jsonl"
    session.write_text("".join(json.dumps(r) + "\n" for r in records(asked, model("It says the build fails."))))
    (conv,) = importers.read(sources.source("qwen").reader(), session).conversations
    assert [t.content for t in conv.turns] == ["what does @notes.txt say?", "It says the build fails."]
    assert [n["kind"] for n in conv.turns[0].injected] == ["referenced files"]
    assert "the build fails on arm64" in conv.turns[0].injected[0]["text"]


def test_the_real_qwen_codes_at_file_question_is_stored_as_typed(qwen_code, tmp_path):
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    (project / "notes.txt").write_text("the build fails on arm64\n")
    (home / ".qwen").mkdir(parents=True)
    (home / ".qwen" / "settings.json").write_text(THEIRS)
    with FakeServer(reply="It says arm64.") as server:
        Qwen(qwen_code, project, home, server)("-p", "what does @notes.txt say?")
        assert "the build fails on arm64" in json.dumps(server.requests)  # the model was sent the file
    ok("import", "--from", "qwen", str(home / ".qwen" / "projects"), env={"HOME": str(home)})
    (listed,) = json.loads(ok("list", "--json").stdout)
    question = json.loads(ok("show", listed["id"], "--json").stdout)["turns"][0]
    assert question["content"] == "what does @notes.txt say?" and listed["title"] == "what does @notes.txt say?"
    assert [n["kind"] for n in question["injected"]] == ["referenced files"]
    assert "the build fails on arm64" in question["injected"][0]["text"]


def test_an_older_qwen_code_runs_convs_hook_to_the_end(qwen_code_old, tmp_path, store_path):
    """Qwen Code 0.15 reads a hook's timeout as milliseconds: the 10 conv once wrote killed the hook at once,
    and every exchange was lost unseen. conv writes 10000 (10 s in every version), and --check says so."""
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    settings = home / ".qwen" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(THEIRS)
    ok("connect", "qwen", env={"HOME": str(home)})
    written = settings.read_text()
    settings.write_text(written.replace('"timeout": 10000', '"timeout": 10'))  # as an older conv wrote it
    assert "killed after 10 ms" in fails("connect", "qwen", "--check", env={"HOME": str(home)}, code=1)
    with FakeServer(reply="It is three.") as server:
        assert "three" in Qwen(qwen_code_old, project, home, server)("-p", "what is 1+2?")
    time.sleep(3)
    assert json.loads(ok("list", "--json").stdout) == []  # the real 0.15 killed the hook: nothing captured
    ok("connect", "qwen", env={"HOME": str(home)})  # written again as every version reads it
    assert settings.read_text() == written
    assert "ok: conv took it in" in ok("connect", "qwen", "--check", env={"HOME": str(home)}).stdout.decode()
    with FakeServer(reply="It is four.") as server:
        assert "four" in Qwen(qwen_code_old, project, home, server)("-p", "what is 2+2?")
    question, answer = stored(2)["turns"]  # this session alone: the killed one's hook never handed it over
    assert (question["content"], answer["content"]) == ("what is 2+2?", "It is four.")
