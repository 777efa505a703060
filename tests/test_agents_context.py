"""Agents, the context budget with its stored summary, --dry-run, usage and
cost, and the model chain (conv models) — all through real conv processes
against the loopback fake server, the store checked with git."""

import json

import pytest
from conftest import fails, git, ok, run_conv

SUMMARIZE = "You condense conversations"


def conversation_md(store_path, conv_id: str) -> str:
    path = git(store_path, "ls-tree", "-r", "--name-only", "HEAD")
    meta = next(p for p in path.splitlines() if p.endswith(f"/{conv_id}/conversation.md"))
    return git(store_path, "show", f"HEAD:{meta}")


def show(ref: str | None = None) -> dict:
    return json.loads(ok("show", "--json", *([ref] if ref else [])).stdout)


def answer_requests(fake) -> list[dict]:
    return [r for r in fake.requests if SUMMARIZE not in r["messages"][0]["content"]]


def summary_requests(fake) -> list[dict]:
    return [r for r in fake.requests if SUMMARIZE in r["messages"][0]["content"]]


# -- agents ---------------------------------------------------------------------

def make_coder(prompt="You write terse Python."):
    ok("config", "set", "agents.coder.system", prompt)
    ok("config", "set", "agents.coder.temperature", "0.2")


def test_an_agent_gives_its_prompt_temperature_and_id_prefix(fake, store_path):
    make_coder()
    ok("ask", "-a", "coder", "reverse a list")
    conv = show()
    assert conv["id"].startswith("coder-") and conv["agent"] == "coder"
    body = fake.requests[-1]
    assert body["messages"][0] == {"role": "system", "content": "You write terse Python."}
    assert body["temperature"] == 0.2
    meta = conversation_md(store_path, conv["id"])
    assert "agent: coder" in meta and "system_hash: \"sha256:" in meta
    git(store_path, "fsck", "--strict")


def test_agent_with_c_continues_that_agents_latest_conversation(fake):
    make_coder()
    ok("ask", "-a", "coder", "first coder question")
    coder = show()["id"]
    ok("ask", "--new", "an unrelated question")  # now the terminal's current one is not coder's
    ok("ask", "-a", "coder", "-c", "and a follow-up")
    assert show(coder)["turn_count"] == 5  # system, q, a, q, a
    sent = [m["content"] for m in fake.requests[-1]["messages"]]
    assert "first coder question" in sent and "an unrelated question" not in sent


def test_a_changed_agent_prompt_warns_once_and_applies(fake, store_path):
    make_coder("Old prompt.")
    ok("ask", "-a", "coder", "q1")
    conv_id = show()["id"]
    before = conversation_md(store_path, conv_id)
    make_coder("New prompt.")
    done = ok("ask", "-c", "q2")  # a follow-up of an agent conversation keeps the agent
    assert "system prompt has changed" in done.stderr.decode()
    assert fake.requests[-1]["messages"][0]["content"] == "New prompt."
    after = conversation_md(store_path, conv_id)
    assert before != after and "system_hash" in after
    again = ok("ask", "-c", "q3")
    assert "changed" not in again.stderr.decode()
    roles = [t["role"] for t in show(conv_id)["turns"]]
    assert roles.count("system") == 2  # both prompts stay in the record


def test_unknown_agent_is_a_one_line_error_and_stores_nothing(fake, conv_home):
    line = fails("ask", "-a", "nobody", "hello", code=2)
    assert "no agent 'nobody'" in line and "conv config set agents.nobody.system" in line
    assert not fake.requests


def test_bad_agent_name_in_config_is_refused(fake):
    line = fails("config", "set", "agents.Bad_Name.system", "x", code=2)
    assert "agent name" in line


# -- context budget and summary -------------------------------------------------

def test_whole_conversation_sent_while_it_fits(fake):
    ok("config", "set", "context.max_messages", "10")
    for n in range(3):
        ok("ask", "-c", f"question {n}")
    assert not summary_requests(fake)
    assert len(fake.requests[-1]["messages"]) == 5  # q0 a0 q1 a1 q2


def test_summary_made_once_stored_and_extended(fake, store_path):
    ok("config", "set", "context.max_messages", "4")
    fake.set(reply="ECHO")  # the answer repeats the question: easy to trace
    for n in range(3):
        ok("ask", "-c", f"question {n}")
    assert not summary_requests(fake)  # 4 earlier messages fit
    ok("ask", "-c", "question 3")  # 6 earlier messages: over the budget
    [first] = summary_requests(fake)
    assert "question 0" in first["messages"][1]["content"]
    conv = show()
    stored = conv["context_summary"]
    assert stored["text"] and stored["through"] in [t["name"] for t in conv["turns"]]
    sent = fake.requests[-1]["messages"]
    assert sent[0]["role"] == "system" and "Summary of the earlier part" in sent[0]["content"]
    assert stored["text"] in sent[0]["content"]
    assert sent[-1] == {"role": "user", "content": "question 3"}
    assert len(sent) <= 1 + 4 + 1
    assert "context_summary" in conversation_md(store_path, conv["id"])
    log = git(store_path, "log", "--format=%s")
    assert "summary of the older turns" in log

    ok("ask", "-c", "question 4")  # fits beside the stored summary: no new summary
    assert len(summary_requests(fake)) == 1
    for n in range(5, 8):
        ok("ask", "-c", f"question {n}")
    later = summary_requests(fake)
    # half the budget is kept verbatim after each summary, so it is extended every
    # other turn here (questions 3, 5, 7), not at each of the five over the budget
    assert len(later) == 3
    assert later[-1]["messages"][1]["content"].startswith("Summary so far:")
    git(store_path, "fsck", "--strict")


def test_token_budget_trims_and_summarizes(fake):
    ok("config", "set", "context.max_tokens", "30")  # about 120 characters of earlier messages
    fake.set(reply="x" * 100)
    ok("ask", "-c", "a long first question " * 3)
    ok("ask", "-c", "second")
    ok("ask", "-c", "third")
    assert summary_requests(fake)
    sent = fake.requests[-1]["messages"]
    earlier = sum(len(m["content"]) for m in sent[1:-1])
    assert earlier <= 30 * 4


def test_a_failed_summary_still_answers_with_the_latest_turns(fake):
    ok("config", "set", "context.max_messages", "2")
    for n in range(2):
        ok("ask", "-c", f"q{n}")
    fake.set(mode="401", fail_times=1)  # the summary request fails, the answer then works
    done = ok("ask", "-c", "q2")
    assert "could not summarize" in done.stderr.decode()
    assert fake.requests[-1]["messages"][-1]["content"] == "q2"


# -- --dry-run ----------------------------------------------------------------

def test_dry_run_prints_exactly_what_is_sent_and_stores_nothing(fake, store_path):
    ok("config", "set", "context.max_messages", "2")
    for n in range(3):
        ok("ask", "-c", f"question {n}")
    head = git(store_path, "rev-parse", "HEAD")
    count = len(fake.requests)
    preview = json.loads(ok("ask", "-c", "--dry-run", "--json", "what now?").stdout)
    assert git(store_path, "rev-parse", "HEAD") == head and len(fake.requests) == count
    assert preview["provider"] == "openai" and preview["chosen_by"] == "the conversation's model"
    ok("ask", "-c", "what now?")
    assert preview["messages"] == fake.requests[-1]["messages"]

    text = ok("ask", "-c", "--dry-run", "and then?").stdout.decode()
    assert "--- user ---\nand then?" in text and "--- system ---" in text
    assert git(store_path, "rev-parse", "HEAD") != head  # only the real ask above committed


def test_dry_run_says_when_a_summary_would_be_made(fake):
    ok("config", "set", "context.max_messages", "2")
    for n in range(2):
        ok("ask", "-c", f"question {n}")
    done = ok("ask", "-c", "--dry-run", "third")
    assert "would first be summarized" in done.stderr.decode()
    assert not summary_requests(fake)


# -- usage and cost -------------------------------------------------------------

def test_usage_and_cost_per_turn_and_in_totals(fake):
    ok("config", "set", "prices.gpt-4o-mini.input", "1000000")  # $1 a token: easy sums
    ok("config", "set", "prices.gpt-4o-mini.output", "2000000")
    ok("ask", "one two three")
    conv = show()
    answer = conv["turns"][-1]
    usage = answer["usage"]
    assert usage["cost"] == usage["prompt_tokens"] * 1 + usage["completion_tokens"] * 2
    assert conv["usage"]["cost"] == usage["cost"]
    listed = json.loads(ok("list", "--json").stdout)[0]
    assert listed["cost"] == usage["cost"] and listed["tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    table = ok("list").stdout.decode()
    assert "COST" in table and f"${usage['cost']:.2f}" in table
    assert "tokens" in ok("show").stdout.decode()


def test_an_answer_read_from_the_cache_keeps_its_classes_and_costs_the_cache_price(fake):
    """The API says part of the prompt came from its cache: counted apart (format/usage.py), priced apart."""
    ok("config", "set", "prices.gpt-4o-mini.input", "1000000")
    ok("config", "set", "prices.gpt-4o-mini.output", "2000000")
    ok("config", "set", "prices.gpt-4o-mini.cache_read", "100000")  # a tenth of input
    fake.set(cached=2)
    ok("ask", "one two three four")
    usage = show()["turns"][-1]["usage"]
    assert usage["cache_read_tokens"] == 2 and usage["prompt_tokens"] == 4 - 2
    assert usage["cost"] == pytest.approx(usage["prompt_tokens"] * 1 + 2 * 0.1 + usage["completion_tokens"] * 2)
    assert json.loads(ok("list", "--json").stdout)[0]["tokens"] == 4 + usage["completion_tokens"]  # every class


def test_a_model_without_price_has_no_cost(fake):
    ok("ask", "hello")
    assert "cost" not in show()["turns"][-1]["usage"]
    assert json.loads(ok("list", "--json").stdout)[0]["cost"] is None


# -- the model chain ------------------------------------------------------------

def test_models_shows_the_chain_and_what_wins(fake, monkeypatch):
    chain = json.loads(ok("models", "--json").stdout)["chain"]
    chosen = [s for s in chain if s["chosen"]]
    assert [s["step"] for s in chosen] == ["OPENAI_API_KEY / OPENAI_BASE_URL"]
    assert [s["step"] for s in chain][:5] == ["-m", "agent (-a)", "the conversation's model", "CONV_MODEL",
                                              "config model"]
    ok("config", "set", "model", "anthropic:claude-x")
    chain = json.loads(ok("models", "--json").stdout)["chain"]
    assert [s["model"] for s in chain if s["chosen"]] == ["anthropic:claude-x"]
    assert "→" in ok("models").stdout.decode()


def test_ollama_on_its_port_answers_when_nothing_else_is_set(fake, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{fake.port}")
    chain = json.loads(ok("models", "--json").stdout)["chain"]
    assert [s["model"] for s in chain if s["chosen"]] == ["ollama:qwen2.5:0.5b"]  # the newest pulled
    ok("ask", "hi ollama")
    assert fake.requests[-1]["model"] == "qwen2.5:0.5b"
    assert show()["turns"][-1]["provider"] == "ollama"
    assert show()["turns"][-1]["usage"]["cost"] == 0.0  # runs on this machine


def test_m_beats_config_and_config_beats_keys(fake):
    ok("config", "set", "model", "gpt-4o")
    ok("ask", "one")
    assert fake.requests[-1]["model"] == "gpt-4o"
    ok("ask", "-m", "openai:fake-model", "two")
    assert fake.requests[-1]["model"] == "fake-model"
    done = run_conv("ask", "-m", "openai:", "three")
    assert done.returncode == 2 and b"names no model" in done.stderr


def test_a_follow_up_goes_on_with_the_conversations_model(fake):
    ok("ask", "-m", "openai:fake-model", "first")
    ok("ask", "-c", "second")  # no -m: the model of the last answer, not the chain's default
    assert fake.requests[-1]["model"] == "fake-model"
    ok("ask", "-c", "-m", "gpt-4o", "third")  # -m still wins, and is recorded per turn
    assert fake.requests[-1]["model"] == "gpt-4o"
    assert [t.get("model") for t in show()["turns"] if t["role"] == "assistant"] == ["fake-model"] * 2 + ["gpt-4o"]


# -- the model's window as the default budget ------------------------------------

def test_without_a_token_limit_the_models_window_is_the_budget_and_nearing_it_warns_once(fake):
    """A model conv knows nothing of gets 8,192 tokens (providers/windows.py):
    about 4,900 of them for earlier messages beside a 300-token question.
    Exchanges of 600 tokens (ECHO) pass 80 % of that at the 8th question
    (one warning), and overflow it at the 10th (the summary takes over)."""
    fake.set(reply="ECHO")
    warned = []
    for n in range(10):
        question = f"question {n} " + "lorem ipsum dolor sit amet " * 44  # ~1,200 characters: 300 tokens
        done = ok("ask", "-m", "some-new-model", *(["-c"] if n else []), question)
        warned += [n] * done.stderr.decode().count("nears what some-new-model reads at once")
        assert len(summary_requests(fake)) == (1 if n == 9 else 0), n
    assert warned == [7]
    assert answer_requests(fake)[-1]["messages"][0]["content"].startswith("Summary of the earlier part")

    fake.requests.clear()  # a model with a large window takes the same conversation whole
    ok("ask", "-m", "gpt-4o-mini", "-c", "and now?")
    assert not summary_requests(fake) and len(fake.requests[-1]["messages"]) > 20


# -- taken up again after a break -----------------------------------------------------

def test_a_follow_up_after_a_break_carries_a_resume_note_and_back_to_back_ones_do_not(fake, store_path):
    ok("ask", "explain git rebase")
    ok("ask", "-c", "and interactive mode?")
    conv_id = show()["id"]
    ok("title", conv_id, "rebase notes")
    ok("summary", conv_id, "Rebase replays commits; -i edits them.")
    ok("ask", "-c", "back to back")
    assert fake.requests[-1]["messages"][0]["role"] == "user"  # no note: no break

    ok("config", "set", "context.resume_after", "1s")  # back-to-back asks come well within 1 s
    import re
    import time

    time.sleep(1.2)
    ok("config", "set", "context.resume_after", "off")  # the same break, with the note off: none
    assert json.loads(ok("ask", "-c", "--dry-run", "--json", "and autosquash?").stdout)["messages"][0]["role"] == "user"
    ok("config", "set", "context.resume_after", "1s")
    preview = json.loads(ok("ask", "-c", "--dry-run", "--json", "and autosquash?").stdout)
    note = preview["messages"][0]
    assert note["role"] == "system" and re.match(
        r"This conversation is being taken up again after a break of \d+ seconds?: it was last active on ",
        note["content"])
    assert "after 3 exchanges" in note["content"] and "Its title: rebase notes" in note["content"]
    assert "Its summary: Rebase replays commits; -i edits them." in note["content"]
    ok("ask", "-c", "and autosquash?")
    assert fake.requests[-1]["messages"][0] == note
    ok("ask", "-c", "right after")  # back to back again: no note
    assert fake.requests[-1]["messages"][0]["role"] == "user"

    assert "use a duration such as 1h, 30m or 2d, or off" in fails("config", "set", "context.resume_after", "soon")


# -- issue 23: context never goes missing in silence ---------------------------------

def request_tokens(request: dict) -> int:
    return sum(len(m["content"]) for m in request["messages"]) // 4


def test_a_follow_up_to_a_long_piped_question_carries_the_conversation(fake, tmp_path):
    """head -c 20000 FILE | conv ask "summarize this"; conv ask -c "and?" sent
    "and?" alone: no earlier turn, no summary, no notice."""
    fake.set(reply="ECHO")
    text = "".join(f"line {n}: the quick brown fox jumps over the lazy dog\n" for n in range(400))[:20000]
    ok("ask", "-m", "some-new-model", "summarize this", input=text)
    done = ok("ask", "-m", "some-new-model", "-c", "and?")
    said = done.stderr.decode()
    assert "this conversation outgrows what some-new-model reads at once (about 6,144 tokens)" in said
    assert "2 older messages go as a summary" in said and "cut in the middle" in said
    [made] = summary_requests(fake)
    sent = made["messages"][-1]["content"]
    assert "line 0:" in sent and "characters cut here to fit" in sent  # the start of each, cut, never dropped
    assert request_tokens(made) <= 6144
    last = answer_requests(fake)[-1]["messages"]
    assert last[0]["content"].startswith("Summary of the earlier part") and last[-1]["content"] == "and?"


def test_a_token_limit_is_named_and_a_summary_that_does_not_condense_is_capped(fake):
    """With context.max_tokens 1000 the notice blamed the model's window; the
    first messages were dropped; a summariser that does not condense made
    requests grow past the budget."""
    fake.set(reply="ECHO")  # the fake echoes what it is sent: a summary as long as its request
    ok("config", "set", "context.max_tokens", "1000")
    said = []
    for n in range(6):
        question = f"question {n} " + "alpha beta gamma delta " * 130  # about 800 tokens
        said.append(ok("ask", "-m", "gpt-4o-mini", *(["-c"] if n else []), question).stderr.decode())
    assert any("outgrows context.max_tokens (1,000 tokens)" in s for s in said)
    assert not any("gpt-4o-mini reads at once" in s for s in said)
    for request in answer_requests(fake):
        earlier = request["messages"][:-1]  # the summary and the latest turns: the budget's part
        assert sum(len(m["content"]) for m in earlier) // 4 <= 1000 * 1.2, len(earlier)
    summaries = [json.loads(ok("show", "--json").stdout).get("context_summary") or {}]
    assert all(len(s.get("text", "")) // 4 <= 1000 // 4 + 2 for s in summaries)


def test_a_question_bigger_than_the_window_is_refused_before_anything_is_stored(fake, store_path):
    big = "x" * 4_000_000  # 4 MB: about a million tokens
    line = fails("ask", "-m", "gpt-4o-mini", "read this", input=big, code=2)
    assert "more than gpt-4o-mini reads at once" in line and "nothing was stored or sent" in line
    assert not fake.requests and not store_path.exists()
    # a model conv does not know: its window is a guess, so the question goes, and that is said
    done = ok("ask", "-m", "some-new-model", "read this", input="y " * 20_000)
    assert "more than the 6,144 conv assumes some-new-model reads at once; sent as it is" in done.stderr.decode()
    assert len(fake.requests) == 1

