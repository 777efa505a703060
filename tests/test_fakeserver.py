"""Tests of the fake OpenAI server itself, using only http.client, so that a
failure here points at the fake rather than at conv's client code."""

import http.client
import json
import os
import subprocess
import sys
import threading
import time

import pytest
from fakeserver import FakeServer

HERE = os.path.dirname(os.path.abspath(__file__))


def post(port, body, path="/v1/chat/completions", timeout=5):
    """POST JSON; return (status, headers, raw body bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("POST", path, json.dumps(body),
                 {"Content-Type": "application/json", "Authorization": "Bearer sk-test"})
    resp = conn.getresponse()
    try:
        data = resp.read()
    except http.client.IncompleteRead as e:
        data = e.partial
    conn.close()
    return resp.status, resp, data


def sse(data):
    """Split an SSE body into its `data:` payloads (strings)."""
    return [ln[len("data: "):] for ln in data.decode().splitlines() if ln.startswith("data: ")]


def content(events):
    return "".join(json.loads(e)["choices"][0]["delta"].get("content", "")
                   for e in events if e != "[DONE]" and json.loads(e)["choices"])


def chat(text="hi there", **kw):
    return {"model": "gpt-test", "messages": [{"role": "user", "content": text}], **kw}


@pytest.fixture
def fake():
    with FakeServer() as srv:
        yield srv


def test_ok_stream_concatenates_to_reply_and_ends_with_done(fake):
    reply = "  The quick  brown fox\njumps. "
    fake.set(reply=reply)
    status, resp, data = post(fake.port, chat(stream=True,
                                              stream_options={"include_usage": True}))
    assert status == 200 and resp.getheader("Content-Type").startswith("text/event-stream")
    events = sse(data)
    assert events[-1] == "[DONE]"
    assert json.loads(events[0])["choices"][0]["delta"] == {"role": "assistant"}
    assert content(events) == reply
    assert len(events) > 5  # really split into several chunks
    assert json.loads(events[-2])["usage"]["completion_tokens"] == 5
    assert all(json.loads(e)["model"] == "gpt-test" for e in events[:-1])
    assert fake.requests[0]["stream"] is True
    assert fake.headers[0]["Authorization"] == "Bearer sk-test"


def test_echo_non_stream_returns_last_user_message_verbatim(fake):
    fake.set(reply="ECHO")
    text = "Ünïcode ✓ and \"quotes\"\n  with  spaces"
    status, _, data = post(fake.port, chat(text))
    obj = json.loads(data)
    assert status == 200 and obj["object"] == "chat.completion"
    assert obj["choices"][0]["message"]["content"] == text
    assert obj["choices"][0]["finish_reason"] == "stop" and obj["usage"]["total_tokens"] > 0


def test_429_fail_times_then_ok():
    with FakeServer(mode="429", retry_after=2, fail_times=1) as srv:
        status, resp, data = post(srv.port, chat())
        assert status == 429 and resp.getheader("Retry-After") == "2"
        assert "error" in json.loads(data)
        status, _, data = post(srv.port, chat())
        assert status == 200
        assert json.loads(data)["choices"][0]["message"]["content"] == "Hello from fake."
        assert len(srv.requests) == 2


def test_cut_stream_ends_without_done(fake):
    fake.set(mode="cut", reply="one two three four five")
    status, _, data = post(fake.port, chat(stream=True))
    events = sse(data)
    assert status == 200 and "[DONE]" not in events
    assert content(events) == "one two "


def test_malformed_stream_has_bad_line(fake):
    fake.set(mode="malformed")
    events = sse(post(fake.port, chat(stream=True))[2])
    assert content(events[:1]) == "Hello " and events[1] == "{not json" and len(events) == 2


def test_stop_does_not_block_on_hung_request():
    """A client stuck on a 'hang' request must not keep stop() from returning."""
    srv = FakeServer(mode="hang").start()
    errors = []
    t = threading.Thread(target=lambda: errors.append(
        pytest.raises(Exception, post, srv.port, chat(), timeout=10)), daemon=True)
    t.start()
    while not srv.requests:
        time.sleep(0.01)
    t0 = time.monotonic()
    srv.stop()
    t.join(5)
    assert time.monotonic() - t0 < 2 and errors  # client saw the connection drop


def test_standalone_prints_port_and_answers():
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "fakeserver.py"),
                             "--port", "0", "--mode", "ok", "--reply", "standalone hi"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline().split()
        assert first[0] == "PORT" and int(first[1]) > 0
        port = int(first[1])
        status, _, data = post(port, chat(stream=True))
        assert status == 200 and content(sse(data)) == "standalone hi"
        # control endpoints let a separate-process test switch modes and inspect requests
        assert post(port, {"mode": "401"}, path="/_fake/set")[0] == 200
        assert post(port, chat())[0] == 401
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/_fake/requests")
        assert len(json.loads(conn.getresponse().read())) == 2
    finally:
        proc.kill()
        proc.wait()
    assert proc.stderr.read() == ""


def test_hold_at_keeps_streams_mid_answer_until_released(fake):
    fake.set(reply="one two three four", hold_at=2)
    got = []
    threads = [threading.Thread(target=lambda: got.append(post(fake.port, chat(stream=True))[2])) for _ in range(2)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 10
    while fake.held < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert fake.held == 2
    time.sleep(0.3)
    assert all(t.is_alive() for t in threads) and got == []  # both wait after "one two "
    fake.set(hold_at=None)
    assert content(sse(post(fake.port, chat(stream=True))[2])) == "one two three four"  # started after: not held
    fake.release()
    for t in threads:
        t.join(10)
    assert [content(sse(data)) for data in got] == ["one two three four"] * 2
