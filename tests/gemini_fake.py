"""Loopback fake of Google's Gemini API (``generateContent``,
``streamGenerateContent`` with ``alt=sse``, ``countTokens``), for the real
Gemini CLI in the tests (``GOOGLE_GEMINI_BASE_URL``). Stdlib only.

``script`` is the answers to give, one list of parts each (``{"text": …}``
or ``{"functionCall": {"name", "args"}}``), taken in turn by the requests
that offer tools (the conversation's); when it is empty, ``reply``. A
request that offers no tools (the CLI's own side calls: choosing a model,
naming a session, checking the next speaker) gets a small JSON answer.
``requests`` records each request's path and body."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SIDE_ANSWER = {"complexity_reasoning": "A simple question.", "complexity_score": 10,  # its model router
               "reasoning": "simple", "model_choice": "flash", "next_speaker": "user"}


class GeminiFake:
    def __init__(self, reply: str = "Hello from the Gemini fake."):
        self.reply, self.script, self.requests = reply, [], []
        self._lock = threading.Lock()
        self.url = self._httpd = None

    def __enter__(self) -> "GeminiFake":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self._json({"models": [{"name": "models/gemini-2.5-pro"}, {"name": "models/gemini-2.5-flash"}]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                with fake._lock:
                    fake.requests.append({"path": self.path, "body": body})
                    parts = fake._answer(body)
                if ":countTokens" in self.path:
                    return self._json({"totalTokens": len(json.dumps(body)) // 4})
                prompt = len(json.dumps(body)) // 4
                response = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                                            "index": 0}],
                            "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": 5,
                                              "totalTokenCount": prompt + 5},
                            "modelVersion": "gemini-2.5-pro"}
                if ":streamGenerateContent" not in self.path:
                    return self._json(response)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(f"data: {json.dumps(response)}\r\n\r\n".encode())
                self.wfile.flush()
                self.close_connection = True

            def _json(self, value):
                data = json.dumps(value).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _answer(self, body: dict) -> list[dict]:
        if not body.get("tools"):  # the CLI's own side request
            return [{"text": json.dumps(SIDE_ANSWER)}]
        return self.script.pop(0) if self.script else [{"text": self.reply}]
