"""The agents' own record kinds, as their TUIs write them (the shapes read off
Claude Code 2.1.328's and Codex 0.169.0's sessions): what a person typed is a
question exactly as typed, whatever it begins with; a `!` shell command or a
custom slash command the model answers is asked as typed; what the tool
wrote itself (its context, a compaction's summary) is kept, never an answer
or a question."""

import json

from conftest import newest, ok

BASE = {"sessionId": "s1", "cwd": "/home/dev/app", "isSidechain": False, "version": "2.1.328"}


def claude(tmp_path, records: list[dict]) -> dict:
    chained, parent = [], None
    for n, record in enumerate(records):
        uuid = f"r{n}"
        chained.append({**BASE, **record, "uuid": uuid, "parentUuid": parent,
                        "timestamp": f"2026-11-28T10:00:{n:02d}.000Z"})
        parent = uuid
    session = tmp_path / "s1.jsonl"
    session.write_text("".join(json.dumps(r) + "\n" for r in chained))
    ok("import", "--from", "claude-code", str(session))
    return newest()


def typed(text: str, **more) -> dict:
    return {"type": "user", "origin": {"kind": "human"}, "message": {"role": "user", "content": text}, **more}


def answer(text: str) -> dict:
    return {"type": "assistant", "message": {"role": "assistant", "model": "claude-opus-5-5", "id": f"m-{text[:8]}",
                                             "content": [{"type": "text", "text": text}]}}


def test_what_a_person_typed_is_the_question_whatever_tag_it_begins_with(tmp_path):
    conv = claude(tmp_path, [
        typed("<bash-stdout>Segmentation fault</bash-stdout> why did my program print this?"),
        answer("A null pointer, most likely."),
        typed("<command-name>/deploy</command-name> what does this tag mean in my log?"),
        answer("Claude Code's record of a slash command.")])
    assert [t["content"] for t in conv["turns"] if t["role"] == "user"] == [
        "<bash-stdout>Segmentation fault</bash-stdout> why did my program print this?",
        "<command-name>/deploy</command-name> what does this tag mean in my log?"]


def test_a_shell_command_and_a_custom_command_the_model_answers_are_asked_as_typed(tmp_path):
    conv = claude(tmp_path, [
        typed("what is in this folder?"), answer("Let me see."),
        {"type": "user", "message": {"role": "user", "content": "<bash-input>ls</bash-input>"}},
        {"type": "user", "message": {"role": "user", "content": "<bash-stdout>README</bash-stdout><bash-stderr>"
                                                                "</bash-stderr>"}},
        answer("There is one README."),
        typed("<command-message>explain</command-message>\n<command-name>/explain</command-name>\n"
              "<command-args>recursion</command-args>"),
        {"type": "user", "isMeta": True, "message": {"role": "user", "content": "Explain recursion simply."}},
        answer("Recursion is a function calling itself.")])
    turns = conv["turns"]
    assert [(t["role"], t["content"]) for t in turns] == [
        ("user", "what is in this folder?"), ("assistant", "Let me see."), ("user", "!ls"),
        ("assistant", "There is one README."), ("user", "/explain recursion"),
        ("assistant", "Recursion is a function calling itself.")]
    assert [n["kind"] for n in turns[2]["injected"]] == ["shell output"]  # what ls printed, kept
    assert [n["kind"] for n in turns[4]["injected"]] == ["meta"]  # the command's prompt, kept


def rollout(tmp_path, items: list[tuple[str, dict]]) -> dict:
    session = tmp_path / "rollout-2026-11-28T10-00-00-0000aaaa-0000-4000-8000-000000000000.jsonl"
    lines = [{"timestamp": "2026-11-28T10:00:00.000Z", "type": "session_meta",
              "payload": {"id": "0000aaaa-0000-4000-8000-000000000000", "cwd": "/home/dev/app"}},
             {"timestamp": "2026-11-28T10:00:00.000Z", "type": "turn_context", "payload": {"model": "gpt-test"}}]
    for n, (kind, payload) in enumerate(items, 1):
        lines.append({"timestamp": f"2026-11-28T10:00:{n:02d}.000Z", "type": kind, "payload": payload})
    session.write_text("".join(json.dumps(r) + "\n" for r in lines))
    ok("import", "--from", "codex", str(session))
    return newest()


def said(role: str, text: str) -> tuple[str, dict]:
    kind = "input_text" if role == "user" else "output_text"
    return "response_item", {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def shown(item: str, text: str) -> tuple[str, dict]:
    return "event_msg", {"type": "item_completed", "item": {"type": item, "content": [{"type": "text", "text": text}]}}


def test_codex_what_its_screen_showed_typed_is_a_question_and_its_compaction_no_answer(tmp_path):
    question = "<turn_aborted> appears in my logs, what does it mean?"
    conv = rollout(tmp_path, [
        said("user", "<environment_context>\n  <cwd>/home/dev/app</cwd>\n</environment_context>"),
        said("user", "what is the answer?"), shown("UserMessage", "what is the answer?"),
        shown("AgentMessage", "42."), said("assistant", "42."),
        said("assistant", "SUMMARY of the chat so far."),  # a compaction's: no AgentMessage on the screen
        ("compacted", {"message": "Another language model started to solve this problem…"}),
        said("user", question), shown("UserMessage", question),
        shown("AgentMessage", "Codex writes it when a turn is stopped."),
        said("assistant", "Codex writes it when a turn is stopped.")])
    assert [(t["role"], t["content"]) for t in conv["turns"]] == [
        ("user", "what is the answer?"), ("assistant", "42."), ("user", question),
        ("assistant", "Codex writes it when a turn is stopped.")]
    assert [n["kind"] for n in conv["turns"][1]["injected"]] == ["compaction summary", "compaction"]
    assert json.loads(ok("search", "SUMMARY", "--json").stdout) == []


def test_a_line_of_the_session_that_holds_no_turn_of_its_own_is_no_second_conversation(tmp_path):
    records = [typed("Q1 hello there"), answer("A1 general kenobi")]
    session = tmp_path / "s1.jsonl"
    chained = [{**BASE, **r, "uuid": f"r{n}", "parentUuid": f"r{n - 1}" if n else None,
                "timestamp": f"2026-11-28T10:00:0{n}.000Z"} for n, r in enumerate(records)]
    chained += [  # two answers to A1: an unreadable message (written first), then the session going on
        {**BASE, "type": "user", "uuid": "w3", "parentUuid": "r1", "timestamp": "2026-11-28T10:00:03.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": None}]}},
        {**BASE, **typed("Q2 second question"), "uuid": "q2", "parentUuid": "r1",
         "timestamp": "2026-11-28T10:00:04.000Z"},
        {**BASE, **answer("A2 second answer"), "uuid": "a2", "parentUuid": "q2",
         "timestamp": "2026-11-28T10:00:05.000Z"}]
    session.write_text("".join(json.dumps(r) + "\n" for r in chained))
    done = json.loads(ok("import", "--from", "claude-code", str(session), "--json").stdout)
    assert (done["found"], done["added"]) == (1, 1) and "held no turn of its own" in done["skipped"][0]
    assert [t["content"] for t in newest()["turns"]] == ["Q1 hello there", "A1 general kenobi", "Q2 second question",
                                                        "A2 second answer"]
