"""Per-ask model options (``-o KEY VALUE``) through the real ``conv`` process
against the loopback fakes of OpenAI's and Anthropic's APIs: what is sent,
what is kept with the answer and shown, and what is refused before anything
is stored or sent."""

import json

import pytest
from conftest import fails, git, ok
from test_provider_faults import by_role, stored_turns


def test_options_are_sent_kept_with_the_answer_and_shown(fake, store_path):
    done = json.loads(ok("ask", "--json", "-o", "temperature", "0.2", "--option", "max_tokens", "500",
                         "-o", "stop", "###", "-o", "stop", "END", "-o", "reasoning_effort", "low",
                         "name a colour").stdout)
    sent = fake.requests[-1]
    assert ((sent["temperature"], sent["max_tokens"], sent["stop"], sent["reasoning_effort"])
            == (0.2, 500, ["###", "END"], "low"))
    assert done["options"] == {"temperature": 0.2, "max_tokens": 500, "stop": ["###", "END"], "reasoning_effort": "low"}
    (_, meta, _), = by_role(stored_turns(store_path), "assistant")
    assert meta["options"] == done["options"]
    (_, question, _), = by_role(stored_turns(store_path), "user")
    assert "options" not in question
    shown = ok("show").stdout.decode()
    assert "-o temperature 0.2 -o max_tokens 500 -o stop '###' -o stop 'END' -o reasoning_effort 'low'" in shown


def test_a_follow_up_asks_with_its_own_options_only(fake):
    ok("ask", "-o", "temperature", "1.5", "first")
    ok("ask", "-c", "second")
    assert "temperature" not in fake.requests[-1]


def test_a_retry_keeps_the_answers_options_with_a_new_seed_unless_told_otherwise(fake):
    ok("ask", "-o", "temperature", "0.3", "-o", "seed", "7", "first")
    assert fake.requests[-1]["seed"] == 7
    ok("retry")
    again = fake.requests[-1]
    assert again["temperature"] == 0.3 and again["seed"] != 7
    ok("retry", "-o", "temperature", "1.1", "-o", "seed", "9")
    assert (fake.requests[-1]["temperature"], fake.requests[-1]["seed"]) == (1.1, 9)
    shown = json.loads(ok("show", "--json").stdout)
    assert shown["turns"][-1]["options"] == {"temperature": 1.1, "seed": 9}


def test_anthropic_is_sent_its_own_spelling(claude):
    ok("ask", "-m", "anthropic:claude-haiku-4-5", "-o", "stop", "###", "-o", "max_tokens", "64",
       "-o", "top_p", "0.5", "hello")
    sent = claude.requests[-1]
    assert (sent["stop_sequences"], sent["max_tokens"], sent["top_p"]) == (["###"], 64, 0.5)
    assert "stop" not in sent


@pytest.mark.parametrize("args, said", [
    (["-o", "temprature", "0.2"], "-o temprature: no such option (did you mean temperature?)"),
    (["-o", "temperature", "hot"], "-o temperature 'hot': use a number from 0 to 2"),
    (["-o", "temperature", "3"], "-o temperature '3': use a number from 0 to 2"),
    (["-o", "top_p", "0"], "-o top_p '0': use a number above 0 and at most 1"),
    (["-o", "max_tokens", "2.5"], "-o max_tokens '2.5': use a whole number"),
    (["-o", "seed", "-1"], "-o seed '-1': use a whole number"),
    (["-o", "stop", ""], "-o stop '': use the text that ends the answer"),
    (["-o", "reasoning_effort", "max"], "-o reasoning_effort 'max': use minimal, low, medium or high"),
    (["-m", "anthropic:claude-haiku-4-5", "-o", "seed", "1"],
     "anthropic takes no seed option (it takes temperature, top_p, max_tokens, stop)"),
    (["-m", "cmd:cat", "-o", "temperature", "0"], "cmd takes no temperature option (it takes none)"),
])
def test_bad_options_are_refused_before_anything_is_stored_or_sent(fake, claude, store_path, args, said):
    ok("ask", "before")
    head, sent = git(store_path, "rev-parse", "HEAD"), len(fake.requests) + len(claude.requests)
    for how in (["ask", *args, "a question"], ["ask", "-nq", *args, "a question"]):  # the fast path, and Typer's
        line = fails(*how, code=2)
        assert said in line and "Traceback" not in line
    assert fails("retry", *args, code=2).count(said) == 1
    assert git(store_path, "rev-parse", "HEAD") == head
    assert len(fake.requests) + len(claude.requests) == sent


def test_the_pair_needs_both_halves(fake):
    assert "requires 2 arguments" in fails("ask", "hello", "-o", "seed", code=2)
    assert fake.requests == []
