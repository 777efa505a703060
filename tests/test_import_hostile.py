"""Every importer against malformed and hostile files (issue 34, part 2; the
named hostile values at every place of every source's shape are the one
suite's, tests/sources/test_hostile_files.py):
nothing a file holds is a traceback, moves the branch over half-checked data
or harms what the store holds. What a record may hold is checked at the one
ingest boundary (conv/importers/boundary.py): a record that does not fit is
left out and counted, a file that cannot be read is named, the import goes
on. The property tests mutate valid records of every source at random and
hold the readers to never needing the boundary's last guard (a record "conv
could not make sense of"): the shapes must catch it all first."""

import json
import os
import sqlite3
import string
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import fails, git, newest, ok, run_conv
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conv.format import ids
from conv.importers import turn_name

sys.path.insert(0, str(Path(__file__).parent / "sources"))  # each source's sample, the one suite's
from samples import SAMPLES  # noqa: E402

MUTATIONS = 40  # examples a source of the property test (the budget: about 4 s a source on this machine)

T0 = "2026-11-26T10:00:00.000Z"

CLAUDE = [
    {"type": "user", "uuid": "u1", "parentUuid": None, "timestamp": T0, "sessionId": "s1", "cwd": "/w",
     "gitBranch": "main", "message": {"role": "user", "content": "what is in notes.txt?"}},
    {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "timestamp": "2026-11-26T10:00:01.000Z",
     "message": {"role": "assistant", "model": "claude-x", "id": "msg1",
                 "usage": {"input_tokens": 10, "output_tokens": 3, "cache_read_input_tokens": 5},
                 "content": [{"type": "thinking", "thinking": "read it"},
                             {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "notes.txt"}}]}},
    {"type": "user", "uuid": "r1", "parentUuid": "a1", "timestamp": "2026-11-26T10:00:02.000Z",
     "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "hello"}]}},
    {"type": "assistant", "uuid": "a2", "parentUuid": "r1", "timestamp": "2026-11-26T10:00:03.000Z",
     "message": {"role": "assistant", "model": "claude-x", "id": "msg2",
                 "usage": {"input_tokens": 20, "output_tokens": 4},
                 "content": [{"type": "text", "text": "It says hello."}]}},
    {"type": "summary", "summary": "notes"},
]
CODEX = [
    {"timestamp": T0, "type": "session_meta", "payload": {"id": "th1", "cwd": "/w", "git": {"branch": "main"}}},
    {"timestamp": T0, "type": "turn_context", "payload": {"model": "gpt-x"}},
    {"timestamp": T0, "type": "response_item", "payload": {"type": "message", "role": "user",
                                                           "content": [{"type": "input_text", "text": "list files"}]}},
    {"timestamp": "2026-11-26T10:00:01.000Z", "type": "response_item",
     "payload": {"type": "function_call", "name": "shell", "call_id": "c1", "arguments": "{\"command\": [\"ls\"]}"}},
    {"timestamp": "2026-11-26T10:00:02.000Z", "type": "response_item",
     "payload": {"type": "function_call_output", "call_id": "c1", "output": "a.txt"}},
    {"timestamp": "2026-11-26T10:00:03.000Z", "type": "response_item",
     "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "One: a.txt"}]}},
    {"timestamp": "2026-11-26T10:00:03.000Z", "type": "event_msg",
     "payload": {"type": "token_count", "info": {"last_token_usage": {"input_tokens": 30, "output_tokens": 6}}}},
]
QWEN = [
    {"type": "user", "uuid": "q1", "parentUuid": None, "timestamp": T0, "sessionId": "s1", "cwd": "/w",
     "provenance": "real_user", "message": {"role": "user", "parts": [{"text": "run the tests"}]}},
    {"type": "system", "subtype": "ui_telemetry", "uuid": "q2", "parentUuid": "q1", "timestamp": T0,
     "systemPayload": {"uiEvent": {"event.name": "qwen-code.api_response"}}},
    {"type": "assistant", "uuid": "q3", "parentUuid": "q2", "timestamp": "2026-11-26T10:00:01.000Z", "model": "qwen3",
     "message": {"role": "model", "parts": [{"text": "checking", "thought": True},
                                            {"functionCall": {"id": "c1", "name": "run_shell_command",
                                                              "args": {"command": "make test"}}}]},
     "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 3}},
    {"type": "tool_result", "uuid": "q4", "parentUuid": "q3", "timestamp": "2026-11-26T10:00:02.000Z",
     "message": {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "run_shell_command",
                                                                 "response": {"output": "ok"}}}]},
     "toolCallResult": {"callId": "c1", "status": "success"}},
    {"type": "assistant", "uuid": "q5", "parentUuid": "q4", "timestamp": "2026-11-26T10:00:03.000Z", "model": "qwen3",
     "message": {"role": "model", "parts": [{"text": "All tests pass."}]}},
    {"type": "system", "subtype": "chat_compression", "uuid": "q6", "parentUuid": "q5", "timestamp": T0,
     "systemPayload": {"compressedHistory": [{"role": "user", "parts": [{"text": "summary"}]}]}},
]
COPILOT = [
    {"type": "session.start", "id": "e0", "timestamp": T0, "parentId": None,
     "data": {"sessionId": "s1", "context": {"cwd": "/w", "branch": "main"}}},
    {"type": "user.message", "id": "e1", "timestamp": T0, "parentId": "e0", "data": {"content": "run the tests"}},
    {"type": "session.usage_record", "id": "e2", "timestamp": T0, "parentId": "e1",
     "data": {"usage": {"inputTokens": 12, "outputTokens": 3, "apiCallId": "a1"}}},
    {"type": "assistant.message", "id": "e3", "timestamp": "2026-11-26T10:00:01.000Z", "parentId": "e2",
     "data": {"content": "", "model": "gpt-x", "toolRequests": [{"toolCallId": "c1", "name": "bash",
                                                                 "arguments": {"command": "make test"}}]}},
    {"type": "tool.execution_complete", "id": "e4", "timestamp": "2026-11-26T10:00:02.000Z", "parentId": "e3",
     "data": {"toolCallId": "c1", "success": True, "result": {"content": "ok"}}},
    {"type": "assistant.message", "id": "e5", "timestamp": "2026-11-26T10:00:03.000Z", "parentId": "e4",
     "data": {"content": "All tests pass.", "model": "gpt-x"}},
]
GEMINI = [
    {"sessionId": "s1", "projectHash": "h", "startTime": T0, "kind": "main"},
    {"$set": {"messages": [{"id": "m0", "timestamp": T0, "type": "user", "content": [{"text": "<session_context>"}]}]}},
    {"id": "m1", "timestamp": T0, "type": "user", "content": [{"text": "run the tests"}]},
    {"id": "m2", "timestamp": "2026-11-26T10:00:01.000Z", "type": "gemini", "content": "Running them.",
     "model": "gemini-x", "tokens": {"input": 12, "output": 3}, "thoughts": [{"subject": "a", "description": "b"}],
     "toolCalls": [{"id": "c1", "name": "run_shell_command", "args": {"command": "make test"}, "status": "success",
                    "result": [{"functionResponse": {"id": "c1", "response": {"output": "ok"}}}]}]},
    {"$rewindTo": "m2"},
    {"id": "m3", "timestamp": "2026-11-26T10:00:03.000Z", "type": "gemini", "content": "All pass.", "model": "g"},
]
PI = [
    {"type": "session", "version": 3, "id": "s1", "timestamp": T0, "cwd": "/w"},
    {"type": "model_change", "id": "p1", "parentId": None, "timestamp": T0, "provider": "x", "modelId": "m"},
    {"type": "message", "id": "p2", "parentId": "p1", "timestamp": T0,
     "message": {"role": "user", "content": [{"type": "text", "text": "run the tests"}]}},
    {"type": "message", "id": "p3", "parentId": "p2", "timestamp": "2026-11-26T10:00:01.000Z",
     "message": {"role": "assistant", "model": "m", "usage": {"input": 12, "output": 3},
                 "content": [{"type": "thinking", "thinking": "hm"},
                             {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "make"}}]}},
    {"type": "message", "id": "p4", "parentId": "p3", "timestamp": "2026-11-26T10:00:02.000Z",
     "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": [{"type": "text",
                                                                                          "text": "ok"}]}},
    {"type": "message", "id": "p5", "parentId": "p4", "timestamp": "2026-11-26T10:00:03.000Z",
     "message": {"role": "assistant", "model": "m", "content": [{"type": "text", "text": "All tests pass."}]}},
]
GPTME = [
    {"role": "user", "content": "hi", "timestamp": "2026-11-26T10:00:00"},
    {"role": "assistant", "content": "hello", "timestamp": "2026-11-26T10:00:01", "metadata": {"model": "m"}},
    {"role": "system", "content": "tool output", "timestamp": "2026-11-26T10:00:02"},
]
SGPT = [{"role": "system", "content": "You are ShellGPT"}, {"role": "user", "content": "list files"},
        {"role": "assistant", "content": "",
         "tool_calls": [{"id": "c1", "function": {"name": "ls", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "a.txt"}, {"role": "assistant", "content": "a.txt"}]
AICHAT = {"model": "openai:gpt-x", "messages": [
    {"role": "system", "content": "be brief"}, {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    {"role": "tool", "content": {"tool_results": [{"call": {"id": "c1", "name": "fs", "arguments": {"p": 1}},
                                                   "output": {"ok": True}}]}},
    {"role": "assistant", "content": "hello"}]}
CHATGPT = [{"id": "c1", "title": "t", "create_time": 1764151200.0, "current_node": "n3", "mapping": {
    "n1": {"parent": None, "children": ["n2"], "message": None},
    "n2": {"parent": "n1", "children": ["n3"], "message": {
        "id": "n2", "author": {"role": "user"}, "create_time": 1764151201.0,
        "content": {"content_type": "text", "parts": ["hi"]}, "metadata": {}}},
    "n3": {"parent": "n2", "children": [], "message": {
        "id": "n3", "author": {"role": "assistant"}, "create_time": 1764151202.0,
        "content": {"content_type": "text", "parts": ["hello"]}, "metadata": {"model_slug": "gpt-x"},
        "recipient": "all"}}}}]
CONV = [{"id": "k3f9x2ab7q4m", "title": "t", "created": T0, "tags": ["a"], "status": "done",
         "turns": [{"name": "20261126-100000.000-aaaa-user", "role": "user", "content": "hi", "created": T0},
                   {"name": "20261126-100001.000-bbbb-assistant", "role": "assistant", "content": "hello",
                    "created": "2026-11-26T10:00:01.000Z", "usage": {"prompt_tokens": 3, "completion_tokens": 1},
                    "files": [{"name": "a.txt", "type": "text/plain", "data_base64": "aGk="}]}]}]


def read(source: str, path):
    """The reader of ``source`` (the one registry) through the ingest boundary."""
    from conv import importers, sources

    return importers.read(sources.source(source).reader(), path)


def write(source: str, folder: Path, data) -> Path:
    """``data`` as ``source`` keeps it on disk (its sample's layout, tests/sources/samples/); the path to import."""
    return SAMPLES[source].write(folder, data, other=False)


def session_file(source: str, folder: Path) -> Path:
    return folder / SAMPLES[source].layout


def well_formed(found) -> None:
    """What the writer relies on, whatever the file held."""
    for conv in found.conversations:
        assert isinstance(conv.title, str) and "\n" not in conv.title and conv.turns
        names = [turn_name(t, i) for i, t in enumerate(conv.turns)]
        assert all(ids.TURN_RE.match(n) for n in names) and names == sorted(names), names
        for turn in conv.turns:
            assert turn.role in ("user", "assistant", "system") and isinstance(turn.content, str)
            assert turn.usage is None or all(isinstance(v, (int, float)) for v in turn.usage.values())
    assert not any("could not make sense of" in line for line in found.said), found.said


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(string.ascii_letters, max_size=6), inner,
                                                                 max_size=3), max_leaves=8)


def _mutated(draw, value, depth=0):
    """``value`` with some of its parts swapped for anything JSON can hold."""
    if draw(st.integers(0, 9)) == 0:
        return draw(JSON_VALUES)
    if isinstance(value, dict):
        return {k: _mutated(draw, v, depth + 1) for k, v in value.items() if draw(st.integers(0, 19))}
    if isinstance(value, list):
        return [_mutated(draw, v, depth + 1) for v in value]
    return value


MUTABLE = sorted(name for name, sample in SAMPLES.items() if sample.form not in ("sqlite", "markdown"))
# (llm's tables: below; aider's chats are text, its hostile values the one suite's)


@pytest.mark.parametrize("source", MUTABLE)
@settings(max_examples=MUTATIONS, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                        HealthCheck.too_slow])
@given(data=st.data())
def test_any_mutation_of_a_record_is_read_or_left_out_never_a_traceback(source, tmp_path_factory, data):
    """Each source's sample with parts swapped for anything JSON can hold. Budget: MUTATIONS examples a source
    (about 4 s a source here); tests/sources/test_hostile_files.py holds every place of every shape to the
    named hostile values."""
    valid = SAMPLES[source].records
    mutated = [_mutated(data.draw, r) for r in valid] if SAMPLES[source].form == "jsonl" else \
        _mutated(data.draw, valid)
    found = read(source, write(source, tmp_path_factory.mktemp("in"), mutated))
    well_formed(found)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(*[st.none() | st.integers(-2**63, 2**63 - 1) | st.floats() | st.text(max_size=6)
                                 | st.binary(max_size=4)] * 5), min_size=1, max_size=6))
def test_any_values_in_llms_tables_are_read_or_left_out(tmp_path_factory, rows):
    logs = tmp_path_factory.mktemp("llm") / "logs.db"
    with sqlite3.connect(logs) as db:
        db.execute("create table conversations (id, name, model)")
        db.execute("create table responses (id, model, prompt, system, response, conversation_id, datetime_utc,"
                   " duration_ms, input_tokens, output_tokens)")
        for row in rows:
            db.execute("insert into conversations values (?, ?, ?)", row[:3])
            db.execute("insert into responses values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (*row, *row))
    well_formed(read("llm", logs))


def test_a_yaml_alias_bomb_in_an_aichat_session_is_named_not_expanded(tmp_path):
    bomb = "".join(f"{k}: &{k} [{', '.join([f'*{p}'] * 9 if p else ['lol'] * 9)}]\n"
                   for p, k in zip(["", *"abcdefgh"], "abcdefghi"))
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "bomb.yaml").write_text(f"model: x\n{bomb}messages:\n- role: user\n  content: *i\n")
    (sessions / "good.yaml").write_text(json.dumps(AICHAT))
    done = json.loads(ok("import", "--from", "aichat", str(sessions), "--json", timeout=30).stdout)
    assert done["found"] == 1 and done["skipped"] == [
        f"{sessions / 'bomb.yaml'}: not read: YAML with aliases (*name), which aichat never writes"]


def test_a_byte_that_is_no_utf8_in_an_aichat_session_costs_that_character_only(tmp_path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "s1.yaml").write_bytes(json.dumps(AICHAT).replace('"hello"', '"caf\\u00e9 hello"').encode()
                                       .replace(b"caf\\u00e9", b"caf\xe9"))
    done = json.loads(ok("import", "--from", "aichat", str(sessions), "--json").stdout)
    assert (done["found"], done["skipped"]) == (1, [])
    assert newest()["turns"][-1]["content"].endswith("\n\ncaf\ufffd hello")


def test_a_record_reusing_an_earlier_uuid_never_replaces_it(tmp_path):
    first = next(r for r in CLAUDE if r.get("type") == "user")
    again = {**first, "message": {"role": "user", "content": "another question under the same uuid"}}
    done = json.loads(ok("import", "--from", "claude-code", str(write("claude-code", tmp_path, [*CLAUDE, again])),
                         "--json").stdout)
    assert done["added"] == 1 and any("reuse an earlier record's uuid" in s for s in done["skipped"])
    turns = [t["content"] for t in newest()["turns"]]
    assert first["message"]["content"] in turns and "another question under the same uuid" not in turns


def test_a_gptme_config_that_is_a_fifo_is_never_waited_on(tmp_path):
    logs = write("gptme", tmp_path, GPTME)
    os.mkfifo(session_file("gptme", tmp_path).parent / "config.toml")
    done = json.loads(ok("import", "--from", "gptme", str(logs), "--json", timeout=20).stdout)
    assert done["added"] == 1  # the workspace is not known; the conversation is


def test_what_is_no_yaml_is_said_in_words(tmp_path):
    (tmp_path / "s.yaml").write_text('{"a": 1}\n{"b": 2}\n')
    said = fails("import", "--from", "aichat", str(tmp_path / "s.yaml"), code=1)
    assert "not YAML (expected '<document start>', but found '{', line 2)" in said


def test_a_conv_export_with_a_token_count_in_words_keeps_listing(tmp_path):
    export = write("conv", tmp_path, [{**CONV[0], "turns": [CONV[0]["turns"][0], {**CONV[0]["turns"][1], "usage": {
        "prompt_tokens": "lots", "completion_tokens": 1}}]}])
    ok("import", "--from", "conv", str(export))
    (listed,) = json.loads(ok("list", "--json").stdout)
    assert listed["tokens"] == 1 and ok("list").returncode == 0


def test_a_parent_cycle_and_a_missing_time_in_a_claude_code_session(tmp_path):
    found = read("claude-code", write("claude-code", tmp_path, [
        {**CLAUDE[0], "message": {"role": "user", "content": 42}}, {**CLAUDE[1], "uuid": 7}, *CLAUDE]))
    well_formed(found)
    (conv,) = found.conversations
    assert [t.role for t in conv.turns] == ["user", "assistant"]
    timeless = read("claude-code", write("claude-code", tmp_path / "t", [
        {**r, "timestamp": "yesterday"} for r in CLAUDE]))
    well_formed(timeless)  # dated by the file's last change, in order


def test_two_chatgpt_conversations_under_one_id_stay_two(tmp_path):
    other = json.loads(json.dumps(CHATGPT[0]).replace('"hi"', '"something else"').replace('"hello"', '"other"'))
    export = write("chatgpt", tmp_path, [CHATGPT[0], other])
    done = json.loads(ok("import", "--from", "chatgpt", str(export), "--json").stdout)
    assert (done["found"], done["added"], done["turns_added"]) == (2, 2, 4)
    assert any("appears more than once" in line for line in done["skipped"])
    for conv in json.loads(ok("list", "--json").stdout):
        assert conv["turns"] == len(json.loads(ok("show", conv["id"], "--json").stdout)["turns"]) == 2


def test_a_session_reachable_under_two_names_is_counted_once(tmp_path):
    folder = write("claude-code", tmp_path / "projects", CLAUDE)
    session = session_file("claude-code", folder)
    (session.parent / "link.jsonl").symlink_to(session)
    done = json.loads(ok("import", "--from", "claude-code", str(folder), "--json").stdout)
    assert (done["found"], done["added"]) == (1, 1)


def test_an_answer_under_way_is_completed_by_the_next_import(tmp_path):
    """Imported in the middle of a tool call, the answer is completed when the session is imported again."""
    folder = tmp_path / "projects"
    write("claude-code", folder, CLAUDE[:2])
    ok("import", "--from", "claude-code", str(folder))
    (conv,) = json.loads(ok("list", "--json").stdout)
    write("claude-code", folder, CLAUDE)
    done = json.loads(ok("import", "--from", "claude-code", str(folder), "--json").stdout)
    assert (done["added"], done["turns_updated"]) == (0, 1)
    answer = json.loads(ok("show", conv["id"], "--json").stdout)["turns"][1]["content"]
    assert "tool result: Read" in answer and answer.endswith("It says hello.")
    assert json.loads(ok("list", "--json").stdout)[0]["tokens"] == (10 + 5 + 3) + (20 + 4)  # usage, once a call


def test_an_answer_the_user_edited_is_not_completed_over(tmp_path):
    folder = tmp_path / "projects"
    write("claude-code", folder, CLAUDE[:2])
    ok("import", "--from", "claude-code", str(folder))
    (conv,) = json.loads(ok("list", "--json").stdout)
    ok("edit", conv["id"], env={"EDITOR": "sed -i s/notes.txt/MY-NOTE/"})
    write("claude-code", folder, CLAUDE)
    done = json.loads(ok("import", "--from", "claude-code", str(folder), "--json").stdout)
    assert done["turns_updated"] == 0
    answer = json.loads(ok("show", conv["id"], "--json").stdout)["turns"][1]["content"]
    assert "MY-NOTE" in answer and "It says hello." not in answer


def test_a_session_that_went_on_after_a_follow_up_in_conv_goes_on_in_a_fork(fake, tmp_path):
    folder = tmp_path / "projects"
    write("claude-code", folder, CLAUDE[:4])
    ok("import", "--from", "claude-code", str(folder))
    (conv,) = json.loads(ok("list", "--json").stdout)
    ok("ask", "--cid", conv["id"], "asked in conv")
    more = [{**CLAUDE[0], "uuid": "u2", "parentUuid": "a2", "timestamp": "2099-01-01T00:00:00.000Z",
             "message": {"role": "user", "content": "asked in Claude Code"}}]
    write("claude-code", folder, CLAUDE[:4] + more)
    done = json.loads(ok("import", "--from", "claude-code", str(folder), "--json").stdout)
    (fork,) = done["forks"]
    mine = [t["content"] for t in json.loads(ok("show", conv["id"], "--json").stdout)["turns"]]
    theirs = [t["content"] for t in json.loads(ok("show", fork, "--json").stdout)["turns"]]
    assert mine[-2] == "asked in conv" and "asked in Claude Code" not in mine  # never two lines in one
    assert theirs[-1] == "asked in Claude Code" and theirs[:2] == mine[:2]


def test_a_deleted_conversation_whose_session_grew_stays_in_one_place(tmp_path, store_path):
    folder = tmp_path / "projects"
    write("claude-code", folder, CLAUDE[:2])
    ok("import", "--from", "claude-code", str(folder))
    (conv,) = json.loads(ok("list", "--json").stdout)
    ok("delete", conv["id"])
    write("claude-code", folder, CLAUDE)
    said = ok("import", "--from", "claude-code", str(folder)).stderr.decode()
    assert f"kept in the trash with them: conv restore {conv['id']}" in said
    assert json.loads(ok("list", "--json").stdout) == []
    tree = git(store_path, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert not any(p.startswith("conversations/") for p in tree)  # one place: the trash
    ok("fsck")
    ok("restore", conv["id"])
    assert json.loads(ok("show", conv["id"], "--json").stdout)["turns"][1]["content"].endswith("It says hello.")


def test_fsck_names_a_conversation_found_in_two_places_and_restore_makes_it_one(tmp_path, store_path):
    folder = tmp_path / "projects"
    write("claude-code", folder, CLAUDE)
    ok("import", "--from", "claude-code", str(folder))
    (conv,) = json.loads(ok("list", "--json").stdout)
    ok("delete", conv["id"])
    shard = f"{conv['id'][0]}/{conv['id'][1]}/{conv['id']}"
    tree = git(store_path, "rev-parse", f"HEAD:trash/{shard}").strip()
    index = tmp_path / "index"  # what an older conv's import did: new turns beside the deleted copy
    run = {"cwd": store_path, "env": {**os.environ, "GIT_INDEX_FILE": str(index), "GIT_WORK_TREE": str(tmp_path)},
           "check": True, "capture_output": True, "text": True}
    subprocess.run(["git", "read-tree", "HEAD"], **run)
    subprocess.run(["git", "read-tree", f"--prefix=conversations/{shard}/", tree], **run)
    new_tree = subprocess.run(["git", "write-tree"], **run).stdout.strip()
    commit = git(store_path, "commit-tree", new_tree, "-p", "HEAD", "-m", "two places").strip()
    git(store_path, "update-ref", "refs/heads/main", commit)
    checked = run_conv("fsck")
    assert checked.returncode == 1
    assert f"conversation {conv['id']} is in conversations/ and in the trash at once" in checked.stdout.decode()
    ok("restore", conv["id"])
    assert ok("fsck").returncode == 0
    assert len(json.loads(ok("show", conv["id"], "--json").stdout)["turns"]) == 2


def test_a_folder_of_another_tools_files_is_named_not_zero_new(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("hello")
    said = fails("import", "--from", "claude-code", str(other), code=1)
    assert f"no claude-code files in {other}" in said
    (other / "x.jsonl").write_text("not json at all\n")
    said = fails("import", "--from", "claude-code", str(other), code=1)
    assert "could be read as claude-code's" in said and "line 1 is no JSON" in said
    from conv import sources

    assert set(sources.NAMES) >= {"claude-code"}


# -- found by trying every importer as a hostile file would --------------------------------------------------


def test_an_encrypted_zip_and_a_fifo_are_one_line_never_a_hang(tmp_path):
    import zipfile

    plain = write("chatgpt", tmp_path / "plain", CHATGPT)
    encrypted = tmp_path / "enc.zip"
    with zipfile.ZipFile(encrypted, "w") as z:
        z.writestr("conversations.json", plain.read_bytes())
    raw = bytearray(encrypted.read_bytes())  # mark the member encrypted, as `zip -P` would
    for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = raw.index(signature) + flags_at
        raw[at] |= 0x1
    encrypted.write_bytes(bytes(raw))
    assert zipfile.is_zipfile(encrypted)
    said = fails("import", "--from", "chatgpt", str(encrypted), code=1)
    assert "a zip conv cannot open" in said
    fifo_folder = tmp_path / "fifo"
    fifo_folder.mkdir()
    os.mkfifo(fifo_folder / "conversations.json")
    for path in (fifo_folder, fifo_folder / "conversations.json"):
        assert "not a regular file" in fails("import", "--from", "chatgpt", str(path), code=1, timeout=20)
    sessions = tmp_path / "sessions"
    write("claude-code", sessions, CLAUDE)
    os.mkfifo(sessions / "s2.jsonl")  # a FIFO among the sessions is named, the rest comes in
    done = json.loads(ok("import", "--from", "claude-code", str(sessions), "--json", timeout=20).stdout)
    assert done["added"] == 1 and any("s2.jsonl: not read: not a regular file" in s for s in done["skipped"])
    # (conv ask -f reads a FIFO as stdin, to its end within a time: tests/test_files.py)


def test_a_tool_call_nested_without_end_costs_that_call_only(tmp_path):
    deep = [*CLAUDE[:1], {**CLAUDE[1], "message": {**CLAUDE[1]["message"], "content": [
        {"type": "tool_use", "id": "t1", "name": "Bash\n```\n# injected", "input": "[" * 5000 + "]" * 5000}]}},
        *CLAUDE[2:]]
    done = json.loads(ok("import", "--from", "claude-code", str(write("claude-code", tmp_path, deep)), "--json").stdout)
    assert (done["added"], done["skipped"]) == (1, [])
    answer = newest()["turns"][1]["content"]
    assert "```tool call: Bash ''' # injected\n[[[" in answer  # the label stays one line of the fence


def test_a_deleted_chat_of_a_tool_without_ids_gets_no_copy_of_itself(tmp_path):
    chats = tmp_path / "chats"
    chats.mkdir()
    (chats / "temp").write_text(json.dumps(SGPT[1:3] + SGPT[4:]))
    ok("import", "--from", "shell-gpt", str(chats))
    (conv,) = json.loads(ok("list", "--json").stdout)
    ok("delete", conv["id"])
    for n in range(2):
        os.utime(chats / "temp", (2_000_000_000 + n, 2_000_000_000 + n))
        done = json.loads(ok("import", "--from", "shell-gpt", str(chats), "--json").stdout)
        assert done["forks"] == [] and done["turns_added"] == 0
    (chats / "temp").write_text(json.dumps(SGPT[1:3] + SGPT[4:] + [{"role": "user", "content": "more"}]))
    done = json.loads(ok("import", "--from", "shell-gpt", str(chats), "--json").stdout)
    assert (done["forks"], done["in_trash"], done["turns_added"]) == ([], [conv["id"]], 1)
    assert [c["title"] for c in json.loads(ok("list", "--deleted", "--json").stdout)] == [conv["title"]]


def test_forks_that_name_each_other_are_all_listed_in_the_tree(tmp_path):
    looped = [{**CONV[0], "id": "a0000000000a", "forked_from": {"conversation": "b0000000000b", "turn": ""}},
              {**CONV[0], "id": "b0000000000b", "forked_from": {"conversation": "a0000000000a", "turn": ""}}]
    ok("import", "--from", "conv", str(write("conv", tmp_path, looped)))
    tree = json.loads(ok("list", "--tree", "--json").stdout)
    assert sorted(c["id"] for c in tree) == ["a0000000000a", "b0000000000b"]


def test_what_a_conv_export_may_not_hold_is_not_imported(fake, tmp_path):
    odd = json.loads(json.dumps(CONV[0]))
    odd["tags"], odd["agent"] = ["fine", "has space", "", "a,b", "new\nline"], "Bad Agent\n"
    odd["turns"][1]["options"] = {"temperature": "hot", "stop": [1, None], "max_tokens": -5, "seed": 7}
    odd["turns"].append({**odd["turns"][0], "name": odd["turns"][0]["name"], "created": "2026-11-26T10:00:02.000Z"})
    ok("import", "--from", "conv", str(write("conv", tmp_path, [odd])))
    (conv,) = json.loads(ok("list", "--json").stdout)
    shown = json.loads(ok("show", conv["id"], "--json").stdout)
    assert shown["tags"] == ["fine"] and "agent" not in shown
    names = [t["name"] for t in shown["turns"]]
    assert len(set(names)) == 3 and shown["turns"][1]["parent"] == names[0]  # a name taken twice: new names, linked
    ok("ask", "--cid", conv["id"], "--dry-run", "q")
    fake.set(reply="again")
    ok("use", conv["id"])
    ok("ask", "--cid", conv["id"], "q")
    ok("retry", "--hint", "not that")
    assert {k: v for k, v in fake.requests[-1].items() if k in ("temperature", "stop", "max_tokens")} == {}


def test_a_chatgpt_conversation_of_endless_branches_is_cut_and_said(tmp_path):
    def said(node, parent, role, text, at, children=()):
        return {"parent": parent, "children": list(children), "message": {
            "id": node, "author": {"role": role}, "create_time": 1.7e9 + at, "content": {"parts": [text]}}}

    answers = [f"a{n}" for n in range(301)]  # one question answered 301 times: 301 branches
    mapping = {"root": {"parent": None, "children": ["q"], "message": None},
               "q": said("q", "root", "user", "the question", 0, answers),
               **{a: said(a, "q", "assistant", f"answer {a}", n + 1) for n, a in enumerate(answers)}}
    export = write("chatgpt", tmp_path, [{"id": "c1", "title": "wide", "mapping": mapping, "current_node": "a300"}])
    done = json.loads(ok("import", "--from", "chatgpt", str(export), "--json", timeout=120).stdout)
    assert done["found"] == 201
    assert any("301 branches: the first and the 200 begun last kept as forks" in s for s in done["skipped"])
    for answer, kept in (("a0", True), ("a50", False), ("a100", False), ("a101", True), ("a300", True)):
        assert bool(json.loads(ok("search", answer, "--json").stdout)) == kept, answer  # the first, the last 200
