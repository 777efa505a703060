"""Provider faults, signals and request shape, each through the real ``conv``
process against the loopback fake; the store is checked with the real git CLI.

For every fault: exit 3, exactly one ``conv: error:`` line on stderr, the
question committed as a user turn and an assistant turn with ``finish: error``
holding whatever text arrived before the fault.
"""

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time

import pytest
from conftest import git, run_conv
from fakeserver import DEFAULT_REPLY, SLOW_REPLY
from ruamel.yaml import YAML

from conv.format.ids import conversation_path

QUESTION = "why is the sky blue?"


# -- helpers ---------------------------------------------------------------------------
def parse_turn(text: str) -> tuple[dict, str]:
    """(frontmatter, body) of a stored Markdown file, read independently of conv."""
    assert text.startswith("---\n"), text
    end = text.index("\n---\n", 3)
    meta = YAML(typ="safe").load(text[4 : end + 1]) or {}
    body = text[end + len("\n---\n") :]
    assert body.endswith("\n"), repr(text)  # conv ends every file with one newline
    return meta, body[:-1]


def stored_turns(store) -> list[tuple[str, dict, str]]:
    """Every turn file at HEAD as (path, frontmatter, body), in name (= time) order."""
    paths = git(store, "ls-tree", "-r", "--name-only", "HEAD").split()
    out = []
    for path in sorted(paths, key=lambda p: p.rsplit("/", 1)[-1]):
        name = path.rsplit("/", 1)[-1]
        if path.startswith("conversations/") and name != "conversation.md":
            meta, body = parse_turn(git(store, "show", f"HEAD:{path}"))
            out.append((path, meta, body))
    return out


def by_role(turns, role):
    return [t for t in turns if t[1].get("role") == role]


def assert_one_error_line(done) -> str:
    err = done.stderr.decode()
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("conv: error:"), err
    return lines[0]


def assert_fault(done, store, question=QUESTION, partial="", code=3) -> str:
    """The common contract of a failed ask; returns the error line."""
    line = assert_one_error_line(done)
    assert done.returncode == code, (done.returncode, line)
    turns = stored_turns(store)
    users, answers = by_role(turns, "user"), by_role(turns, "assistant")
    assert len(users) == 1, turns
    user_path, _, user_body = users[0]
    assert user_path.endswith("-user.md")
    assert user_body == question
    assert len(answers) == 1, turns
    path, meta, body = answers[0]
    assert path.endswith("-assistant.md")
    assert path.rsplit("/", 1)[0] == user_path.rsplit("/", 1)[0]  # same conversation
    assert meta.get("finish") == "error", meta
    assert meta.get("error"), meta  # why it failed is kept with the turn
    assert meta.get("parent") == user_path.rsplit("/", 1)[-1][:-3]
    assert body == partial
    return line


def closed_port() -> int:
    """A loopback port nothing listens on."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def write_config(conv_home, text: str) -> None:
    cfg = conv_home / "config" / "config.yaml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(text)


def timed_requests(fake) -> list[float]:
    """Record when each chat request reaches the fake (monotonic seconds)."""
    times: list[float] = []
    record = fake._record

    def _record(body, headers):
        times.append(time.monotonic())
        record(body, headers)

    fake._record = _record
    return times


# -- faults ----------------------------------------------------------------------------
def test_connection_refused(store_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    t0 = time.monotonic()
    done = run_conv("ask", QUESTION, env={"OPENAI_BASE_URL": url}, timeout=20)
    line = assert_fault(done, store_path)
    assert "refused" in line
    assert time.monotonic() - t0 < 10  # no long wait on a refused connection


def test_401_is_not_retried(fake, store_path):
    fake.set(mode="401")
    done = run_conv("ask", QUESTION, timeout=20)
    line = assert_fault(done, store_path)
    assert "401" in line
    assert len(fake.requests) == 1


@pytest.mark.parametrize("status", ["429", "500"])
def test_always_failing_is_retried_once_then_reported(fake, store_path, status):
    fake.set(mode=status, retry_after=0)
    times = timed_requests(fake)
    done = run_conv("ask", QUESTION, timeout=20)
    line = assert_fault(done, store_path)
    assert status in line
    assert len(fake.requests) == 2  # the one retry, no more
    # Retry-After: 0 is honoured, not replaced by the 1 s default wait
    assert times[1] - times[0] < 0.8, times


@pytest.mark.parametrize("status", ["429", "500"])
def test_single_failure_is_retried_after_retry_after(fake, store_path, status):
    fake.set(mode=status, fail_times=1, retry_after=1)
    times = timed_requests(fake)
    t0 = time.monotonic()
    done = run_conv("ask", QUESTION, timeout=20)
    elapsed = time.monotonic() - t0
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr.decode() == ""
    assert done.stdout.decode() == DEFAULT_REPLY + "\n"
    assert len(fake.requests) == 2
    assert elapsed >= 1.0
    assert times[1] - times[0] >= 0.95, times
    turns = stored_turns(store_path)
    (_, _, question), = [(p, m, b) for p, m, b in by_role(turns, "user")]
    assert question == QUESTION
    (_, meta, body), = by_role(turns, "assistant")
    assert meta["finish"] == "stop" and "error" not in meta
    assert body == DEFAULT_REPLY


def test_retry_after_too_long_is_reported_not_waited(fake, store_path):
    fake.set(mode="429", retry_after=3600)
    t0 = time.monotonic()
    done = run_conv("ask", QUESTION, timeout=20)
    assert time.monotonic() - t0 < 10
    line = assert_fault(done, store_path)
    assert "3600" in line
    assert len(fake.requests) == 1


def test_read_timeout_while_waiting_for_headers(fake, store_path, conv_home):
    write_config(conv_home, "timeout:\n  read: 1\n")
    fake.set(mode="hang")
    t0 = time.monotonic()
    done = run_conv("ask", QUESTION, timeout=20)
    elapsed = time.monotonic() - t0
    assert_fault(done, store_path)
    assert 1.0 <= elapsed < 10, elapsed
    assert len(fake.requests) == 1  # a timeout is not retried


def test_read_timeout_mid_stream_keeps_the_partial(fake, store_path, conv_home):
    write_config(conv_home, "timeout:\n  read: 1\n")
    fake.set(mode="stall")
    t0 = time.monotonic()
    done = run_conv("ask", QUESTION, timeout=20)
    elapsed = time.monotonic() - t0
    line = assert_fault(done, store_path, partial="Hello ")
    assert "timeout" in line
    assert 1.0 <= elapsed < 10, elapsed
    assert done.stdout.decode().startswith("Hello")


def test_stream_cut_keeps_the_partial(fake, store_path):
    fake.set(mode="cut")
    done = run_conv("ask", QUESTION, timeout=20)
    assert_fault(done, store_path, partial="Hello from ")
    assert done.stdout.decode() == "Hello from \n"


def test_malformed_event_keeps_what_came_before(fake, store_path):
    fake.set(mode="malformed")
    done = run_conv("ask", QUESTION, timeout=20)
    line = assert_fault(done, store_path, partial="Hello ")
    assert "malformed" in line


def test_no_stream_cut_body_is_a_provider_error(fake, store_path):
    """Non-streaming: the server promises a Content-Length and closes halfway."""
    fake.set(mode="cut")
    done = run_conv("ask", "--no-stream", QUESTION, timeout=20)
    assert_fault(done, store_path)


def test_no_stream_malformed_body_is_a_provider_error(fake, store_path):
    fake.set(mode="malformed")
    done = run_conv("ask", "--no-stream", QUESTION, timeout=20)
    assert_fault(done, store_path)


# -- signals mid-stream ------------------------------------------------------------------
def _interrupt_mid_stream(fake, signum):
    """Start an ask against the slow fake, wait for answer text, send ``signum``."""
    fake.set(mode="slow", chunk_delay=0.3)
    proc = subprocess.Popen(
        [sys.executable, "-m", "conv", "ask", QUESTION],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=dict(os.environ),
    )
    try:
        fd, first, deadline = proc.stdout.fileno(), b"", time.monotonic() + 15
        while not first.strip() and time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                first += chunk
        assert first.strip(), f"no answer text arrived (exit {proc.poll()})"
        # Let conv finish printing that piece and wait for the next one (0.3 s away):
        # a signal landing inside AnswerPrinter._write is a separate, known race.
        time.sleep(0.1)
        proc.send_signal(signum)
        rest, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, (first + rest).decode(), err.decode()


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_mid_stream_keeps_what_was_streamed(fake, store_path, signum, code):
    returncode, out, err = _interrupt_mid_stream(fake, signum)
    assert returncode == code, (returncode, err)
    assert "Traceback" not in err, err
    turns = stored_turns(store_path)
    (_, _, question), = by_role(turns, "user")
    assert question == QUESTION
    (_, meta, body), = by_role(turns, "assistant")
    assert meta.get("finish") == "interrupted", meta
    assert body.strip(), "the partial answer is empty"
    assert SLOW_REPLY.startswith(body)
    assert body != SLOW_REPLY  # really cut short
    # exactly what was shown: stdout is the stored text plus the closing newline
    assert out == body + ("" if body.endswith("\n") else "\n"), (out, body)


# -- what the request carries ------------------------------------------------------------
def test_api_key_is_sent_as_bearer_token(fake):
    done = run_conv("ask", QUESTION, env={"OPENAI_API_KEY": "sk-test-123"})
    assert done.returncode == 0, done.stderr.decode()
    assert fake.headers[-1]["Authorization"] == "Bearer sk-test-123"
    done = run_conv("ask", "again, without a key")
    assert done.returncode == 0, done.stderr.decode()
    assert "Authorization" not in fake.headers[-1]


def test_model_flag_beats_env_beats_config(fake, conv_home):
    def sent_model(*args, env=None):
        done = run_conv("ask", *args, QUESTION, env=env)
        assert done.returncode == 0, done.stderr.decode()
        return fake.requests[-1]["model"]

    write_config(conv_home, "model: cfg-model\n")
    assert sent_model() == "cfg-model"
    assert sent_model(env={"CONV_MODEL": "env-model"}) == "env-model"
    assert sent_model("-m", "flag-model", env={"CONV_MODEL": "env-model"}) == "flag-model"
    assert sent_model("-m", "openai:gpt-4o") == "gpt-4o"  # provider prefix stripped


def test_model_switch_mid_conversation_is_recorded_on_that_turn(fake, store_path):
    fake.set(reply="ECHO")
    first = run_conv("ask", "--json", "first question")
    assert first.returncode == 0, first.stderr.decode()
    conv_id = json.loads(first.stdout)["conversation"]
    second = run_conv("ask", "-c", "-m", "gpt-4o", "second question")
    assert second.returncode == 0, second.stderr.decode()
    assert fake.requests[-1]["model"] == "gpt-4o"
    assert [m["content"] for m in fake.requests[-1]["messages"]] == [
        "first question", "first question", "second question"]
    third = run_conv("ask", "-c", "third question")
    assert third.returncode == 0, third.stderr.decode()
    assert len(fake.requests[-1]["messages"]) == 5  # the conversation went on

    turns = stored_turns(store_path)
    assert {p.rsplit("/", 2)[-2] for p, _, _ in turns} == {conv_id}  # one conversation
    answers = by_role(turns, "assistant")
    assert [b for _, _, b in answers] == ["first question", "second question", "third question"]
    models = [m.get("model") for _, m, _ in answers]
    assert models[0] == "gpt-4o-mini"
    assert models[1] == "gpt-4o"
    assert models[2] == fake.requests[-1]["model"]


def test_no_stream_sends_a_plain_request(fake, store_path):
    done = run_conv("ask", "--no-stream", QUESTION)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == DEFAULT_REPLY + "\n"
    body = fake.requests[-1]
    assert body.get("stream") is not True
    assert "stream_options" not in body
    (_, meta, text), = by_role(stored_turns(store_path), "assistant")
    assert meta["finish"] == "stop"
    assert text == DEFAULT_REPLY
    # and the default does stream
    done = run_conv("ask", QUESTION)
    assert done.returncode == 0, done.stderr.decode()
    assert fake.requests[-1].get("stream") is True


@pytest.mark.parametrize("extra", [[], ["--no-stream"]])
def test_json_output(fake, store_path, extra):
    done = run_conv("ask", "--json", *extra, QUESTION)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr.decode() == ""
    data = json.loads(done.stdout)
    assert data["answer"] == DEFAULT_REPLY
    assert data["finish"] == "stop"
    assert data["model"] == "gpt-4o-mini"
    assert ("stream" in fake.requests[-1]) is (not extra)
    files = git(store_path, "ls-tree", "-r", "--name-only", "HEAD").split()
    where = conversation_path(data['conversation'])
    assert f"{where}/{data['question_turn']}.md" in files
    assert f"{where}/{data['answer_turn']}.md" in files
    meta, body = parse_turn(git(store_path, "show", f"HEAD:{where}/{data['answer_turn']}.md"))
    assert body == DEFAULT_REPLY and meta["finish"] == "stop"
