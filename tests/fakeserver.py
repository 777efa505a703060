"""Loopback fake of the OpenAI chat-completions API, for fault injection.

Stdlib only, so it can run inside pytest (``with FakeServer(...) as srv``) or as
a separate process for benchmarks and shell tests::

    python tests/fakeserver.py --port 0 --mode ok     # first stdout line: "PORT <n>"

Modes (see FakeServer): ok, 401, 429, 500, hang, stall, cut, malformed, slow.
``host`` may be an IPv6 address (``::1``); ``tls`` a server-side
``ssl.SSLContext`` (the URL is then https://); ``tool_call=(name, arguments)`` streams
a call of that tool (when the request offers tools and its last message is
not a tool's result) instead of an answer; ``redirect=(status, base)``
answers every POST to ``/moved/REST`` with that status and
``Location: base/REST`` (``base`` "" for this server).

Every response uses ``Connection: close``.  Streams are close-delimited (no
chunked encoding), which http.client and httpx read incrementally; it also
means a client pool can never reuse a socket owned by a stopped server.

Control endpoints, mainly for the standalone process (the in-process API is
``set()`` / ``.requests``): ``POST /_fake/set`` with a JSON object of ``set()``
keywords, and ``GET /_fake/requests`` returning the recorded POST bodies.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODES = {"ok", "401", "429", "500", "hang", "stall", "cut", "malformed", "slow"}
DEFAULT_REPLY = "Hello from fake."
SLOW_REPLY = " ".join(f"word{i}" for i in range(1, 101))  # 100 words
SLOW_CHUNK_DELAY = 0.2
MODELS = ["gpt-4o-mini", "gpt-4o", "fake-model"]
OLLAMA_MODELS = ["llama3:8b", "qwen2.5:0.5b"]  # the second is the newest

ERRORS = {
    401: {"message": "Incorrect API key provided", "type": "invalid_request_error",
          "code": "invalid_api_key"},
    429: {"message": "Rate limit reached (fake)", "type": "requests",
          "code": "rate_limit_exceeded"},
    500: {"message": "The server had an error while processing your request (fake).",
          "type": "server_error", "code": None},
}


class CIDict(dict):
    """Header dict with lower-cased keys whose lookups ignore case, so tests can
    write either ``h["Authorization"]`` or ``h["authorization"]``."""

    def __init__(self, items=()):
        super().__init__((k.lower(), v) for k, v in items)

    def __getitem__(self, k):
        return super().__getitem__(k.lower())

    def __contains__(self, k):
        return super().__contains__(k.lower())

    def get(self, k, default=None):
        return super().get(k.lower(), default)


def _text(content) -> str:
    """Message content may be a string or a list of parts ({"type":"text",...})."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def split_reply(reply: str) -> list[str]:
    """Word-sized pieces that keep their whitespace: ''.join(pieces) == reply."""
    return re.findall(r"^\s+|\S+\s*", reply)


class FakeServer:
    """In-process fake server.

    ``reply=None`` / ``chunk_delay=None`` mean "default for the mode": mode
    "slow" then uses a 100-word reply and 0.2 s per chunk, other modes use
    "Hello from fake." and no delay.  ``reply="ECHO"`` answers with the last
    user message.  ``fail_times=N`` makes only the first N chat requests fail
    in modes 401/429/500 (later ones are answered as "ok"); None fails always.
    ``hold_at=N`` holds each streamed answer that starts while it is set after
    its N-th piece until ``release()`` (``held`` counts the streams waiting
    there): races happen on cue, mid-stream, however slow the machine.
    """

    _SETTABLE = ("mode", "reply", "delay", "chunk_delay", "retry_after", "fail_times", "hold_at", "redirect",
                 "tool_call", "cached")

    def __init__(self, mode="ok", reply=None, delay=0.0, chunk_delay=None,
                 retry_after=None, fail_times=None, *, host="127.0.0.1", port=0, tls=None):
        self.mode, self.reply, self.delay, self.chunk_delay = "ok", None, 0.0, None
        self.retry_after, self.fail_times, self.hold_at, self.redirect, self.tls = None, None, None, None, tls
        # (name, JSON arguments): streamed as a tool call when tools are offered, until one answers
        self.tool_call = None
        self.cached = None  # prompt tokens said to come from the cache (usage.prompt_tokens_details.cached_tokens)
        self.held = 0  # streams waiting at hold_at
        self._released = threading.Event()
        self.set(mode=mode, reply=reply, delay=delay, chunk_delay=chunk_delay,
                 retry_after=retry_after, fail_times=fail_times)
        self.host, self.port, self.url = host, port, None
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.failed = 0  # chat requests answered with an injected error so far
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = self._thread = None

    def set(self, **kw):
        """Change behaviour at run time (applies to requests arriving afterwards)."""
        for k, v in kw.items():
            if k not in self._SETTABLE:
                raise TypeError(f"unknown FakeServer setting: {k}")
            if k == "mode" and str(v) not in MODES:
                raise ValueError(f"unknown mode {v!r}; expected one of {sorted(MODES)}")
            setattr(self, k, str(v) if k == "mode" else v)
        if "fail_times" in kw or "mode" in kw:
            self.failed = 0  # a new failure budget starts with each mode/fail_times change
        if kw.get("hold_at") is not None:
            self._released.clear()

    def release(self):
        """Let every stream held at ``hold_at`` go on."""
        self._released.set()

    def start(self):
        self._stopping.clear()
        server = _HTTPServer6 if ":" in self.host else _HTTPServer
        self._httpd = server((self.host, self.port), _Handler)
        if self.tls:  # the handshake happens in the handler's thread, at its first read
            self._httpd.socket = self.tls.wrap_socket(self._httpd.socket, server_side=True,
                                                      do_handshake_on_connect=False)
        self._httpd.fake = self
        self.port = self._httpd.server_address[1]
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.url = f"{'https' if self.tls else 'http'}://{host}:{self.port}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self):
        """Stop serving; wakes hung/stalled handlers, never waits for them."""
        if self._httpd is None:
            return
        self._stopping.set()
        self._released.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- helpers used by the handler -------------------------------------------------
    def _sleep(self, seconds):
        if seconds:
            self._stopping.wait(seconds)

    def _record(self, body, headers):
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)

    def _take_failure(self) -> bool:
        """True if this request should get the injected error (fail_times budget)."""
        with self._lock:
            if self.fail_times is not None and self.failed >= self.fail_times:
                return False
            self.failed += 1
            return True


class Loopback:
    """A fake of another API, served on 127.0.0.1 by ``handler`` in a thread
    for the length of a ``with`` block (``url``: where); the handler reaches
    the fake as ``self.server.fake``."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]):
        self._handler, self.url = handler, ""

    def __enter__(self):
        self._httpd = _HTTPServer(("127.0.0.1", 0), self._handler)
        self._httpd.fake = self
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True  # server_close() must not join hung handler threads
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # clients hanging up mid-stream is expected here; stay silent


class _HTTPServer6(_HTTPServer):
    address_family = socket.AF_INET6


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeOpenAI/1.0"

    def log_message(self, *args):
        pass

    # -- plumbing -----------------------------------------------------------------------
    @property
    def fake(self) -> FakeServer:
        return self.server.fake

    def _json(self, status, obj, extra=()):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status, extra=()):
        self._json(status, {"error": ERRORS[status]}, extra)

    def _cut(self):
        """Abruptly end the connection (no [DONE], no more bytes)."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _event(self, obj):
        payload = obj if isinstance(obj, str) else json.dumps(obj)
        self.wfile.write(f"data: {payload}\n\n".encode())
        self.wfile.flush()

    # -- routes ---------------------------------------------------------------------------
    def do_GET(self):
        path = self.path.split("?")[0].rstrip("/")
        if path in ("/v1/models", "/models"):
            if self.fake.mode == "401":
                return self._error(401)
            return self._json(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": 1700000000, "owned_by": "fake"}
                for m in MODELS]})
        if path == "/api/tags":  # Ollama's list of pulled models: this fake can stand in for it
            return self._json(200, {"models": [{"name": m, "modified_at": f"2026-11-0{n + 1}T00:00:00Z"}
                                               for n, m in enumerate(OLLAMA_MODELS)]})
        if path == "/_fake/requests":
            with self.fake._lock:
                return self._json(200, list(self.fake.requests))
        self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self):
        path = self.path.split("?")[0].rstrip("/")
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        if path == "/_fake/set":
            try:
                self.fake.set(**(body or {}))
            except (TypeError, ValueError) as e:
                return self._json(400, {"error": {"message": str(e)}})
            return self._json(200, {"ok": True})
        if path.startswith("/moved/") and self.fake.redirect:
            self.fake._record(body, CIDict(self.headers.items()))
            status, base = self.fake.redirect
            return self._json(int(status), {}, [("Location", base + path[len("/moved"):])])
        if path not in ("/v1/chat/completions", "/chat/completions"):
            return self._json(404, {"error": {"message": f"no route {self.path}",
                                              "type": "not_found"}})
        self.fake._record(body if body is not None else {"_invalid_json": raw.decode(
            "utf-8", "replace")}, CIDict(self.headers.items()))
        if not isinstance(body, dict):
            return self._json(400, {"error": {"message": "invalid JSON body",
                                              "type": "invalid_request_error"}})
        self._chat(body)

    def _chat(self, body):
        f = self.fake
        mode, hold = f.mode, f.hold_at  # snapshot: set() from another thread mustn't change mid-answer
        f._sleep(f.delay)
        if mode in ("401", "429", "500") and f._take_failure():
            extra = [("Retry-After", str(f.retry_after))] \
                if mode != "401" and f.retry_after is not None else []
            return self._error(int(mode), extra)
        if mode == "hang":
            f._stopping.wait()
            return self._cut()

        model = body.get("model") or "fake-model"
        reply = f.reply if f.reply is not None else (SLOW_REPLY if mode == "slow"
                                                     else DEFAULT_REPLY)
        if reply == "ECHO":
            users = [m for m in body.get("messages") or []
                     if isinstance(m, dict) and m.get("role") == "user"]
            reply = _text(users[-1].get("content")) if users else ""
        chunk_delay = f.chunk_delay if f.chunk_delay is not None else (
            SLOW_CHUNK_DELAY if mode == "slow" else 0.0)
        prompt = sum(len(_text(m.get("content")).split())
                     for m in body.get("messages") or [] if isinstance(m, dict))
        usage = {"prompt_tokens": prompt, "completion_tokens": len(reply.split()),
                 "total_tokens": prompt + len(reply.split())}
        if f.cached is not None:
            usage["prompt_tokens_details"] = {"cached_tokens": min(f.cached, prompt)}
        cid, created = f"chatcmpl-fake{len(f.requests)}", int(time.time())

        if not body.get("stream"):
            if mode == "malformed":
                return self._raw(200, b"{not json", "application/json")
            obj = {"id": cid, "object": "chat.completion", "created": created,
                   "model": model, "usage": usage, "choices": [{
                       "index": 0, "finish_reason": "stop", "logprobs": None,
                       "message": {"role": "assistant", "content": reply}}]}
            if mode == "cut":  # promise the full length, deliver half
                data = json.dumps(obj).encode()
                self._raw(200, data[: len(data) // 2], "application/json", len(data))
                return self._cut()
            return self._json(200, obj)

        def chunk(delta, finish=None, **extra):
            return {"id": cid, "object": "chat.completion.chunk", "created": created,
                    "model": model, **extra, "choices": [
                        {"index": 0, "delta": delta, "finish_reason": finish}]}

        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        pieces = split_reply(reply)
        if mode == "malformed":
            self._event(chunk({"role": "assistant", "content": pieces[0] if pieces else ""}))
            self._event("{not json")
            return self._cut()
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        if f.tool_call and body.get("tools") and messages and messages[-1].get("role") != "tool":
            name, arguments = f.tool_call  # the client is to run it and send its result back
            self._event(chunk({"role": "assistant", "content": None, "tool_calls": [
                {"index": 0, "id": f"call_{len(f.requests)}", "type": "function",
                 "function": {"name": name, "arguments": arguments}}]}))
            self._event(chunk({}, "tool_calls"))
            self._event("[DONE]")
            return
        self._event(chunk({"role": "assistant"}))
        for i, piece in enumerate(pieces):
            if mode == "cut" and i == 2:
                return self._cut()
            self._event(chunk({"content": piece}))
            if i + 1 == hold:
                with f._lock:
                    f.held += 1
                f._released.wait(120)
            f._sleep(chunk_delay)
            if mode == "stall" and i == 0:
                f._stopping.wait()
                return self._cut()
        if mode == "cut":  # reply shorter than 3 pieces: still never finish properly
            return self._cut()
        self._event(chunk({}, "stop"))
        if (body.get("stream_options") or {}).get("include_usage"):
            self._event({"id": cid, "object": "chat.completion.chunk", "created": created,
                         "model": model, "choices": [], "usage": usage})
        self._event("[DONE]")

    def _raw(self, status, data, ctype, length=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data) if length is None else length))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--mode", default="ok", choices=sorted(MODES))
    p.add_argument("--reply", default=None)
    p.add_argument("--delay", type=float, default=0.0)
    p.add_argument("--chunk-delay", type=float, default=None)
    p.add_argument("--retry-after", default=None)
    p.add_argument("--fail-times", type=int, default=None)
    a = p.parse_args(argv)
    srv = FakeServer(a.mode, a.reply, a.delay, a.chunk_delay, a.retry_after,
                     a.fail_times, host=a.host, port=a.port).start()
    print(f"PORT {srv.port}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()


if __name__ == "__main__":
    sys.exit(main())
