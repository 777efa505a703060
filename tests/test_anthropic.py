"""The Anthropic provider through the real ``conv`` process against a loopback
fake of the Messages API (anthropic_fake.py): what is sent, what is printed
and stored, how it is chosen, and each fault keeping what arrived before it.
"""

import json

import pytest
from anthropic_fake import CACHE_READ_TOKENS, DEFAULT_REPLY, INPUT_TOKENS
from conftest import ANTHROPIC_KEY, fails, ok, run_conv
from test_provider_faults import (
    QUESTION,
    assert_fault,
    by_role,
    closed_port,
    stored_turns,
)

from conv.home.config import Config
from conv.providers import Message
from conv.providers.anthropic import AnthropicProvider

KEY = ANTHROPIC_KEY
HAIKU = "claude-haiku-4-5"
USAGE = {"prompt_tokens": INPUT_TOKENS, "cache_write_tokens": 0, "cache_read_tokens": CACHE_READ_TOKENS,
         "completion_tokens": 4}  # in their classes; 4 pieces in DEFAULT_REPLY


# -- a whole exchange ----------------------------------------------------------------------
def test_streamed_answer_is_printed_sent_as_the_api_wants_and_stored(claude, store_path):
    done = ok("ask", "-m", f"anthropic:{HAIKU}", "-s", "Answer briefly.", QUESTION)
    assert done.stdout.decode() == DEFAULT_REPLY + "\n"
    assert claude.requests == [{
        "model": HAIKU, "max_tokens": 4096, "system": "Answer briefly.", "stream": True,
        "messages": [{"role": "user", "content": QUESTION}],
    }]
    headers = claude.headers[-1]
    assert headers["x-api-key"] == KEY
    assert headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in headers

    (_, meta, body), = by_role(stored_turns(store_path), "assistant")
    assert body == DEFAULT_REPLY
    assert meta["provider"] == "anthropic" and meta["model"] == HAIKU and meta["finish"] == "stop"
    assert meta["usage"] == USAGE  # cache reads count as prompt tokens
    shown = json.loads(ok("show", "--json").stdout)
    assert shown["turns"][-1]["usage"] == USAGE


def test_follow_up_carries_the_earlier_turns(claude):
    claude.reply = "Rayleigh scattering."
    ok("ask", "-m", HAIKU, "-s", "Answer briefly.", QUESTION)
    claude.reply = "Less blue light reaches you."
    ok("ask", "-c", "-m", "claude-sonnet-4-5", "and at sunset?")
    sent = claude.requests[-1]
    assert sent["model"] == "claude-sonnet-4-5"  # a bare claude-… name goes to Anthropic
    assert sent["system"] == "Answer briefly."
    assert sent["messages"] == [
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": "Rayleigh scattering."},
        {"role": "user", "content": "and at sunset?"},
    ]


def test_a_failed_answer_leaves_two_questions_in_a_row_merged(claude):
    claude.status = 401
    run_conv("ask", "first question")
    claude.status = None
    ok("ask", "-c", "second question")
    assert claude.requests[-1]["messages"] == [{"role": "user", "content": "first question\n\nsecond question"}]


def test_no_stream_is_one_json_response(claude, store_path):
    claude.stop_reason = "max_tokens"
    done = ok("ask", "--no-stream", QUESTION)
    assert done.stdout.decode() == DEFAULT_REPLY + "\n"
    assert "stream" not in claude.requests[-1]
    (_, meta, body), = by_role(stored_turns(store_path), "assistant")
    assert body == DEFAULT_REPLY
    assert meta["finish"] == "length" and meta["usage"] == USAGE


def test_the_provider_joins_system_prompts_merges_roles_and_passes_temperature(claude):
    pieces = []
    reply = AnthropicProvider.from_config(Config()).complete(
        [Message("system", "Be brief."), Message("system", "Use French."), Message("user", "q1"),
         Message("user", "q2"), Message("assistant", "a1"), Message("assistant", "a2"), Message("user", "q3")],
        HAIKU, pieces.append, options={"temperature": 0.2},
    )
    sent = claude.requests[-1]
    assert sent["system"] == "Be brief.\n\nUse French."
    assert sent["messages"] == [
        {"role": "user", "content": "q1\n\nq2"},
        {"role": "assistant", "content": "a1\n\na2"},
        {"role": "user", "content": "q3"},
    ]
    assert sent["temperature"] == 0.2
    assert pieces == ["Hello ", "from ", "fake ", "Claude."]
    assert (reply.model, reply.finish, reply.usage) == (HAIKU, "stop", USAGE)


# -- which provider answers -----------------------------------------------------------------
def test_with_only_anthropic_api_key_set_claude_haiku_answers(claude):
    answer = json.loads(ok("ask", "--json", QUESTION).stdout)
    assert (answer["provider"], answer["model"]) == ("anthropic", HAIKU)
    assert claude.requests[-1]["model"] == HAIKU


def test_a_bare_claude_model_name_picks_anthropic_over_openai(claude, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{closed_port()}/v1")  # never reached
    answer = json.loads(ok("ask", "--json", "-m", "claude-opus-4-1", QUESTION).stdout)
    assert (answer["provider"], answer["model"]) == ("anthropic", "claude-opus-4-1")
    assert claude.requests[-1]["model"] == "claude-opus-4-1"


def test_without_a_key_the_default_server_is_not_tried(conv_home):
    line = fails("ask", "-m", HAIKU, QUESTION, code=3)
    assert "ANTHROPIC_API_KEY" in line and "ANTHROPIC_BASE_URL" in line


# -- faults: exit 3, one error line, the partial answer kept with finish: error ---------------
def test_error_event_mid_stream_keeps_the_partial(claude, store_path):
    claude.mode = "error"
    done = run_conv("ask", QUESTION)
    line = assert_fault(done, store_path, partial="Hello from ")
    assert "Overloaded" in line
    assert done.stdout.decode() == "Hello from \n"
    assert len(claude.requests) == 1  # a failure mid-answer is not retried


def test_stream_ending_without_message_stop_keeps_the_partial(claude, store_path):
    claude.mode = "short"
    done = run_conv("ask", QUESTION)
    line = assert_fault(done, store_path, partial=DEFAULT_REPLY)
    assert "closed before the answer was complete" in line


def test_connection_dropped_mid_stream_keeps_the_partial(claude, store_path):
    claude.mode = "cut"
    done = run_conv("ask", QUESTION)
    assert_fault(done, store_path, partial="Hello from ")


def test_overloaded_529_is_retried_once_after_retry_after(claude, store_path):
    claude.status, claude.fail_times, claude.retry_after = 529, 1, "0"
    done = ok("ask", QUESTION)
    assert done.stdout.decode() == DEFAULT_REPLY + "\n" and done.stderr == b""
    assert len(claude.requests) == 2
    (_, meta, body), = by_role(stored_turns(store_path), "assistant")
    assert body == DEFAULT_REPLY and meta["finish"] == "stop"


def test_overloaded_twice_is_reported(claude, store_path):
    claude.status, claude.retry_after = 529, "0"
    line = assert_fault(run_conv("ask", QUESTION), store_path)
    assert "529" in line and "Overloaded" in line
    assert len(claude.requests) == 2  # the one retry, no more


@pytest.mark.parametrize("status, hint", [(401, "Check ANTHROPIC_API_KEY"), (404, "Check the model name")])
def test_refusals_are_one_line_and_not_retried(claude, store_path, status, hint):
    claude.status = status
    line = assert_fault(run_conv("ask", QUESTION), store_path)
    assert f"({status})" in line and hint in line
    assert len(claude.requests) == 1


def test_connection_refused(store_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{closed_port()}")
    line = assert_fault(run_conv("ask", QUESTION, timeout=20), store_path)
    assert "refused" in line and "ANTHROPIC_BASE_URL" in line
