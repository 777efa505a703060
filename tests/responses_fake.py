"""Loopback fake of OpenAI's Responses API (``POST /v1/responses``, streamed),
as Codex CLI speaks it: each request is answered by the next scripted list of
output items (message, reasoning, function_call), streamed as the API's typed
events (response.created, response.output_item.added/done, output_text
deltas, response.completed with usage). Stdlib only.

    with ResponsesFake() as srv:   # srv.url + "/v1" is a provider's base_url
        srv.script = [[{"type": "function_call", ...}], [{"type": "message", ...}]]
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler

from fakeserver import Loopback


def message(text: str, item_id: str = "msg_fake") -> dict:
    return {"type": "message", "id": item_id, "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


class ResponsesFake(Loopback):
    def __init__(self):
        super().__init__(_Handler)
        self.script: list[list[dict]] = []
        self.requests: list[dict] = []
        self._lock = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        fake: ResponsesFake = self.server.fake
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        with fake._lock:
            fake.requests.append(body)
            items = fake.script.pop(0) if fake.script else [message("ok")]
            rid = f"resp_{len(fake.requests)}"
        events = [{"type": "response.created", "response": {"id": rid, "object": "response", "status": "in_progress",
                                                            "model": body.get("model"), "output": []}}]
        for index, item in enumerate(items):
            events.append({"type": "response.output_item.added", "output_index": index, "item": item})
            if item["type"] == "message":
                events.append({"type": "response.output_text.delta", "item_id": item["id"], "output_index": index,
                               "content_index": 0, "delta": item["content"][0]["text"]})
            events.append({"type": "response.output_item.done", "output_index": index, "item": item})
        events.append({"type": "response.completed", "response": {
            "id": rid, "object": "response", "status": "completed", "model": body.get("model"), "output": items,
            "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                      "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}}})
        data = b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
