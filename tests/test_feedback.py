"""A plain ``conv ask`` read as feedback on the last answer or as its
follow-up (the per-shell session seed's P1 and P2), through the CLI against
the loopback fake, the store read with git."""

import json
import time

import pytest
from conftest import git, ok, run_conv

TERM = {"CONV_SESSION": "feedback-test"}
AGAIN = "Please answer again."


def ask(*args: str, **env):
    return ok("ask", *args, env={**TERM, **env})


def listed() -> list[dict]:
    return json.loads(ok("list", "--json").stdout)


def shown(ref: str) -> dict:
    return json.loads(ok("show", ref, "--json").stdout)


def first_answer(fake) -> dict:
    fake.set(reply="Merge joins histories.")
    ask("explain git rebase")
    [conv] = listed()
    return conv


@pytest.mark.parametrize("said, hint", [
    ("the answer is wrong", None),
    ("No, that's not what I meant.", None),
    ("给我的答案不对", None),
    ("that's wrong, I meant rebase -i", "that's wrong, I meant rebase -i"),
])
def test_negative_feedback_asks_again_keeps_the_old_answer_and_records_it(fake, store_path, said, hint):
    conv = first_answer(fake)
    old = shown(conv["id"])["turns"][1]
    fake.set(reply="Rebase replays commits.")
    done = ask(said)
    assert done.stdout.decode().strip() == "Rebase replays commits."
    err = done.stderr.decode()
    assert err.count("\n") == 1 and f"taken as feedback on the last answer in {conv['short']}" in err
    assert f'meant as a new question? conv ask --new "{said}"' in err
    because = f": {hint}." if hint else "."
    assert [(m["role"], m["content"]) for m in fake.requests[-1]["messages"]] == [
        ("user", "explain git rebase"), ("assistant", "Merge joins histories."),
        ("user", f"That answer was wrong{because} {AGAIN}"),
    ]
    [after] = listed()  # no new conversation
    assert after["id"] == conv["id"] and after["turns"] == 2 and after["wrong"] == 1
    answer = shown(conv["id"])["turns"][1]
    assert answer["content"] == "Rebase replays commits." and answer["feedback"] == "negative"
    assert answer["replaces"] == old["name"] and answer.get("hint") == said  # the line is kept as it was said
    assert "Merge joins histories." in git(store_path, "log", "-p", "main")  # the old answer, in history
    assert "asked again: the answer before was marked wrong" in ok("show", conv["id"]).stdout.decode()
    assert " ✗1 " in ok("list").stdout.decode()
    git(store_path, "fsck", "--strict")


@pytest.mark.parametrize("said", ["show me more", "and in Python?", "More."])
def test_a_continuation_follows_up(fake, said):
    conv = first_answer(fake)
    done = ask(said)
    assert f"taken as a follow-up to {conv['short']}" in done.stderr.decode()
    assert ([m["content"] for m in fake.requests[-1]["messages"]]
            == ["explain git rebase", "Merge joins histories.", said])
    assert [c["id"] for c in listed()] == [conv["id"]] and listed()[0]["turns"] == 4


@pytest.mark.parametrize("said", ["how do I undo a commit?", "is it wrong to force-push?",
                                  "more or less what is a tag"])
def test_an_unrelated_question_starts_a_new_conversation(fake, said):
    first_answer(fake)
    done = ask(said)
    assert done.stderr.decode() == ""
    assert [m["content"] for m in fake.requests[-1]["messages"]] == [said]
    assert len(listed()) == 2


def test_not_after_the_window_not_with_new_and_phrases_from_config(fake):
    first_answer(fake)
    ask("--new", "try again")
    assert [m["content"] for m in fake.requests[-1]["messages"]] == ["try again"] and len(listed()) == 2
    ok("config", "set", "feedback.window", "1s")
    time.sleep(1.2)
    ask("try again")
    assert [m["content"] for m in fake.requests[-1]["messages"]] == ["try again"] and len(listed()) == 3

    ok("config", "set", "feedback.window", "10m")
    ok("config", "set", "feedback.negative", "nah, rubbish")
    ask("rubbish")
    assert fake.requests[-1]["messages"][-1]["content"] == f"That answer was wrong. {AGAIN}"
    assert len(listed()) == 3
    ok("config", "set", "feedback.window", "off")
    ask("try again")
    assert len(listed()) == 4


def test_the_model_as_classifier(fake):
    first_answer(fake)
    ok("config", "set", "feedback.classifier", "classifier-model")
    fake.set(reply="continue")
    ask("what is the weather like there")  # no phrase says so; the model does
    classified, answered = fake.requests[-2:]
    assert (classified["model"] == "classifier-model"
            and "You sort a user's new message" in classified["messages"][0]["content"])
    assert "New message: what is the weather like there" in classified["messages"][1]["content"]
    assert len(answered["messages"]) == 3 and len(listed()) == 1
    fake.set(reply="new")
    ask("try again")  # the model said new: the phrase does not count
    assert len(listed()) == 2


def test_a_dry_run_of_feedback_names_the_old_answers_model_as_the_conversations(fake):
    ok("config", "set", "agents.coder.system", "terse")
    ok("config", "set", "agents.coder.model", "openai:agent-model")
    ask("-a", "coder", "-m", "openai:asked-model", "explain git rebase")
    preview = json.loads(ask("--dry-run", "--json", "that's wrong").stdout)
    assert preview["taken_as"].startswith("feedback on the last answer")
    assert (preview["model"], preview["chosen_by"]) == ("asked-model", "the conversation's model")  # no -m was given


def test_retry_wrong_and_hint_record_the_feedback_a_plain_retry_does_not(fake):
    conv = first_answer(fake)
    ok("retry", conv["id"], env=TERM)
    assert "feedback" not in shown(conv["id"])["turns"][1]
    ok("retry", conv["id"], "--wrong", env=TERM)
    assert shown(conv["id"])["turns"][1]["feedback"] == "negative"
    ok("retry", conv["id"], "--hint", "about rebase", env=TERM)
    assert shown(conv["id"])["turns"][1]["feedback"] == "negative" and listed()[0]["wrong"] == 1


# ---- issue 23: a real question is never swallowed; the undo really undoes ----

def test_the_corpus_no_question_is_taken_for_feedback_and_all_feedback_is_read():
    """106 questions holding feedback words (70 English, 36 Chinese) and 44
    feedback lines: precision and recall of the phrase reader, both 1.0 here."""
    from feedback_corpus import CONTINUATION, NEGATIVE, QUESTIONS

    from conv.services.ask.feedback import _normal, by_phrase

    assert len(QUESTIONS) >= 100 and len(NEGATIVE) + len(CONTINUATION) >= 30
    taken = [q for q in QUESTIONS if by_phrase(_normal(q)) != (None, None)]
    assert not taken, taken  # no false positive: no question swallowed
    assert [n for n in NEGATIVE if by_phrase(_normal(n))[0] != "negative"] == []
    assert [c for c in CONTINUATION if by_phrase(_normal(c))[0] != "continuation"] == []


@pytest.mark.parametrize("said", ["try again with exponential backoff in Python",
                                  "try again later — what does HTTP 503 mean?",
                                  "不对称加密和对称加密有什么区别?", "如何继续一个中断的 git rebase?"])
def test_a_question_holding_a_feedback_word_is_asked_as_it_is(fake, said):
    first_answer(fake)
    done = ask(said)
    assert done.stderr.decode() == ""
    assert [m["content"] for m in fake.requests[-1]["messages"]] == [said]
    assert len(listed()) == 2 and all(c["wrong"] == 0 for c in listed())


def test_after_an_unsaved_exchange_try_again_is_a_question_not_feedback_on_an_older_one(fake):
    conv = first_answer(fake)
    ask("--no-save", "what is a tag?")
    done = ask("try again")
    assert "taken as" not in done.stderr.decode()
    assert [m["content"] for m in fake.requests[-1]["messages"]] == ["try again"]
    assert shown(conv["id"])["turns"][1]["content"] == "Merge joins histories."  # untouched


def test_try_again_after_an_answer_that_did_not_finish_asks_again_without_calling_it_wrong(fake):
    fake.set(mode="cut")
    assert run_conv("ask", "explain git rebase", env=TERM).returncode == 3
    fake.set(mode="ok", reply="Rebase replays commits.")
    done = ask("try again")
    assert "as its answer did not finish" in done.stderr.decode()
    assert [m["content"] for m in fake.requests[-1]["messages"]] == ["explain git rebase"]  # no "was wrong"
    answer = shown(listed()[0]["id"])["turns"][-1]
    assert answer["content"] == "Rebase replays commits." and answer["hint"] == "try again"


def test_dry_run_shows_what_the_line_would_do(fake, store_path):
    conv = first_answer(fake)
    head, sent = git(store_path, "rev-parse", "main"), len(fake.requests)
    done = ask("--dry-run", "that's wrong")
    said = done.stderr.decode()
    assert (f"this line would be taken as feedback on the last answer of {conv['id']}: "
            "asked again, told it was wrong") in said
    assert f"That answer was wrong. {AGAIN}" in done.stdout.decode()
    preview = json.loads(ask("--dry-run", "--json", "and in Python?").stdout)
    assert preview["taken_as"] == f"a follow-up to {conv['id']}" and len(preview["messages"]) == 3
    assert git(store_path, "rev-parse", "main") == head and len(fake.requests) == sent


def test_a_deleted_current_conversation_never_breaks_a_plain_ask(fake):
    conv = first_answer(fake)
    ok("delete", conv["id"], env=TERM)
    ask("that's wrong")  # nothing to be feedback on: a question of its own
    assert [m["content"] for m in fake.requests[-1]["messages"]] == ["that's wrong"]
    ok("delete", listed()[0]["id"], env=TERM)
    ask("what is a tag?")
    assert [m["content"] for m in fake.requests[-1]["messages"]] == ["what is a tag?"]


def test_the_printed_undo_puts_the_old_answer_back_and_asks_the_line_anew(fake, store_path):
    conv = first_answer(fake)
    fake.set(reply="Rebase replays commits.")
    said = ask("that's wrong").stderr.decode()
    undo = said.split("meant as a new question? ")[1].split(" puts ")[0]
    assert undo == 'conv ask --new "that\'s wrong"'
    fake.set(reply="What was wrong?")
    done = ask("--new", "that's wrong")
    assert f"{conv['short']} is as it was before that line; asking it as a new question" in done.stderr.decode()
    back = shown(conv["id"])
    assert [t["content"] for t in back["turns"]] == ["explain git rebase", "Merge joins histories."]
    assert "feedback" not in back["turns"][1] and " ✗1 " not in ok("list").stdout.decode()
    assert [m["content"] for m in fake.requests[-1]["messages"]] == ["that's wrong"]  # asked as a question
    assert len(listed()) == 2
    assert "Rebase replays commits." in git(store_path, "log", "-p", "main")  # the retry, in history
    git(store_path, "fsck", "--strict")


def test_the_undo_of_a_follow_up_takes_it_back(fake):
    conv = first_answer(fake)
    ask("and in Python?")
    assert len(shown(conv["id"])["turns"]) == 4
    ask("--new", "and in Python?")
    assert len(shown(conv["id"])["turns"]) == 2 and len(listed()) == 2


def test_dry_run_shows_the_plan_of_every_kind_of_line(fake, store_path):
    """The ask decides once what a line is; --dry-run shows that decision
    for each kind, the waiting question and the undo included, storing and
    sending nothing."""
    conv = first_answer(fake)
    fork = json.loads(ok("fork", conv["id"], "--at", "1", "--json", env=TERM).stdout)["id"]
    head, sent = git(store_path, "rev-parse", "main"), len(fake.requests)
    waiting = json.loads(ask("-c", "--dry-run", "--json").stdout)
    assert waiting["taken_as"] == f"asking {fork[:6]}'s waiting question, which has no answer yet"
    assert [m["role"] for m in waiting["messages"]] == ["user"]
    ask("-c", "and the answer?")  # answers the fork's question, then this one
    ask("that's wrong")
    undo = json.loads(ask("--new", "--dry-run", "--json", "that's wrong").stdout)
    assert undo["taken_as"].startswith(f"putting {fork[:6]} back as it was before that line, then a new question")
    assert [m["content"] for m in undo["messages"]] == ["that's wrong"]
    assert len(fake.requests) == sent + 2 and git(store_path, "rev-parse", "main") != head  # the dry runs sent nothing


def test_one_builder_makes_what_conv_ask_was_told():
    """The Typer command and the fast path's parser hand their parameters to one builder."""
    from pathlib import Path

    cli = Path(__file__).resolve().parent.parent / "src" / "conv" / "cli"
    built = [p.relative_to(cli).as_posix() for p in cli.rglob("*.py") if "AskOptions(" in p.read_text()]
    assert built == ["run/ask.py"]
