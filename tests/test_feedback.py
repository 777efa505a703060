"""A plain ``conv ask`` read as feedback on the last answer or as its
follow-up (the per-shell session seed's P1 and P2), through the CLI against
the loopback fake, the store read with git."""

import json
import time

import pytest
from conftest import git, ok

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
    assert answer["replaces"] == old["name"] and answer.get("hint") == hint
    assert "Merge joins histories." in git(store_path, "log", "-p", "main")  # the old answer, in history
    assert "asked again: the answer before was marked wrong" in ok("show", conv["id"]).stdout.decode()
    assert " ✗1 " in ok("list").stdout.decode()
    git(store_path, "fsck", "--strict")


@pytest.mark.parametrize("said", ["show me more", "and in Python?", "More."])
def test_a_continuation_follows_up(fake, said):
    conv = first_answer(fake)
    done = ask(said)
    assert f"taken as a follow-up to {conv['short']}" in done.stderr.decode()
    assert [m["content"] for m in fake.requests[-1]["messages"]] == ["explain git rebase", "Merge joins histories.", said]
    assert [c["id"] for c in listed()] == [conv["id"]] and listed()[0]["turns"] == 4


@pytest.mark.parametrize("said", ["how do I undo a commit?", "is it wrong to force-push?", "more or less what is a tag"])
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
    assert classified["model"] == "classifier-model" and "You sort a user's new message" in classified["messages"][0]["content"]
    assert "New message: what is the weather like there" in classified["messages"][1]["content"]
    assert len(answered["messages"]) == 3 and len(listed()) == 1
    fake.set(reply="new")
    ask("try again")  # the model said new: the phrase does not count
    assert len(listed()) == 2


def test_retry_wrong_and_hint_record_the_feedback_a_plain_retry_does_not(fake):
    conv = first_answer(fake)
    ok("retry", conv["id"], env=TERM)
    assert "feedback" not in shown(conv["id"])["turns"][1]
    ok("retry", conv["id"], "--wrong", env=TERM)
    assert shown(conv["id"])["turns"][1]["feedback"] == "negative"
    ok("retry", conv["id"], "--hint", "about rebase", env=TERM)
    assert shown(conv["id"])["turns"][1]["feedback"] == "negative" and listed()[0]["wrong"] == 1
