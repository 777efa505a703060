"""Loopback fake of Anthropic's Messages API (``POST /v1/messages``) speaking its
real wire format, so the Anthropic provider is tested through a real ``conv``
process: typed SSE events (message_start, content_block_start, ping,
content_block_delta, content_block_stop, message_delta, message_stop) in a
chunked body, ``event: error`` mid-stream, and error statuses with Anthropic's
``{"type": "error", "error": {...}}`` body. Stdlib only.

    with AnthropicFake() as srv:   # srv.url is what ANTHROPIC_BASE_URL is set to
        srv.reply = "…"; srv.mode = "error"; srv.status, srv.fail_times = 529, 1

Modes: ok; error (an overloaded_error event after two pieces); short (the body
ends properly but without message_stop); cut (the connection drops inside
the body, after two pieces). ``status`` answers the first ``fail_times``
requests (all when None) with that HTTP status and ``retry_after``.

``script``, a list of answers, each a list of content blocks (text, thinking,
tool_use), answers the next streamed requests in turn, as an agent such as
Claude Code is answered (a tool_use block ends its answer with stop_reason
tool_use); when it is empty, ``reply`` answers. The path may carry a query
(Claude Code asks ``/v1/messages?beta=true``).
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler

from fakeserver import CIDict, Loopback, split_reply

DEFAULT_REPLY = "Hello from fake Claude."
INPUT_TOKENS = 21  # message_start's usage: input, plus cache reads below
CACHE_READ_TOKENS = 4
ERRORS = {
    401: ("authentication_error", "invalid x-api-key"),
    403: ("permission_error", "Your API key does not have permission to use the specified resource."),
    404: ("not_found_error", "model: no-such-model"),
    429: ("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
    500: ("api_error", "Internal server error"),
    529: ("overloaded_error", "Overloaded"),
}


class AnthropicFake(Loopback):
    def __init__(self):
        super().__init__(_Handler)
        self.reply, self.mode, self.stop_reason = DEFAULT_REPLY, "ok", "end_turn"
        self.status: int | None = None
        self.fail_times: int | None = None
        self.retry_after: str | None = None
        self.requests: list[dict] = []
        self.script: list[list[dict]] = []
        self.headers: list[CIDict] = []
        self._failed = 0
        self._lock = threading.Lock()

    def _record(self, body, headers) -> int | None:
        """Keep the request; the error status to answer it with, if any."""
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            if self.status is None or (self.fail_times is not None and self._failed >= self.fail_times):
                return None
            self._failed += 1
            return self.status


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        fake: AnthropicFake = self.server.fake
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if self.path.split("?")[0] != "/v1/messages":
            return self._json(404, _error("not_found_error", f"no route {self.path}"))
        status = fake._record(body, CIDict(self.headers.items()))
        if status is not None:
            extra = {"retry-after": fake.retry_after} if fake.retry_after is not None else {}
            return self._json(status, _error(*ERRORS[status]), extra)
        model, pieces = body.get("model"), split_reply(fake.reply)
        usage = {"input_tokens": INPUT_TOKENS, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": CACHE_READ_TOKENS}
        with fake._lock:
            blocks = fake.script.pop(0) if fake.script and body.get("stream") else None
        if blocks is not None:
            return self._blocks(model, usage, blocks)
        if not body.get("stream"):
            return self._json(200, {
                "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": fake.reply}], "stop_reason": fake.stop_reason,
                "stop_sequence": None, "usage": usage | {"output_tokens": len(pieces)}})
        self._open_stream("msg_fake", model, usage)
        self._event("content_block_start", {"type": "content_block_start", "index": 0,
                                            "content_block": {"type": "text", "text": ""}})
        self._event("ping", {"type": "ping"})
        for i, piece in enumerate(pieces):
            if i == 2 and fake.mode == "error":
                self._event("error", _error("overloaded_error", "Overloaded"))
                return self._end()
            if i == 2 and fake.mode == "cut":
                return self._drop()
            self._event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                "delta": {"type": "text_delta", "text": piece}})
        self._event("content_block_stop", {"type": "content_block_stop", "index": 0})
        self._event("message_delta", {"type": "message_delta",
                                      "delta": {"stop_reason": fake.stop_reason, "stop_sequence": None},
                                      "usage": {"output_tokens": len(pieces)}})
        if fake.mode != "short":
            self._event("message_stop", {"type": "message_stop"})
        self._end()

    def _blocks(self, model, usage, blocks):
        """A streamed answer of these content blocks, each as the API streams its kind."""
        self._open_stream(f"msg_fake{len(self.server.fake.requests)}", model, usage)
        for index, block in enumerate(blocks):
            kind = block["type"]
            start = {"text": {"type": "text", "text": ""}, "thinking": {"type": "thinking", "thinking": ""},
                     "tool_use": {"type": "tool_use", "id": block.get("id"), "name": block.get("name"),
                                  "input": {}}}[kind]
            self._event("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
            deltas = {"text": [{"type": "text_delta", "text": block.get("text")}],
                      "thinking": [{"type": "thinking_delta", "thinking": block.get("thinking")},
                                   {"type": "signature_delta", "signature": "c2lnbmF0dXJl"}],
                      "tool_use": [{"type": "input_json_delta", "partial_json": json.dumps(block.get("input"))}]}[kind]
            for delta in deltas:
                self._event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
            self._event("content_block_stop", {"type": "content_block_stop", "index": index})
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        self._event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                      "usage": {"output_tokens": 7}})
        self._event("message_stop", {"type": "message_stop"})
        self._end()

    def _open_stream(self, message_id, model, usage):
        """The headers of a streamed answer, and its message_start event."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self._event("message_start", {"type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": usage | {"output_tokens": 1}}})

    def _json(self, status, obj, extra=None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _event(self, kind, data):
        chunk = f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        self.wfile.flush()

    def _end(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _drop(self):
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _error(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}}
