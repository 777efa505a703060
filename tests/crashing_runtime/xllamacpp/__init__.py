"""A runtime that crashes on purpose, found in place of the xllamacpp wheel
when this folder's parent is on PYTHONPATH (conv's local-model host process
inherits it). CRASHING_RUNTIME says where it dies, as a real one could:

- ``import``: SIGILL, as a wheel built for a newer CPU dies on an older one;
- ``load``: a real segmentation fault (a read of address 0) while loading;
- ``answer``: streams two pieces of an answer on the host's Unix socket as
  llama.cpp's server would, then the same segmentation fault.
"""

import ctypes
import json
import os
import signal
import socket
import threading
from types import SimpleNamespace

WHEN = os.environ.get("CRASHING_RUNTIME", "load")
PIECES = ["Half ", "an answer"]

if WHEN == "import":
    os.kill(os.getpid(), signal.SIGILL)


def crash() -> None:
    ctypes.string_at(0)  # SIGSEGV, from a C read, as llama.cpp's would be


class CommonParams(SimpleNamespace):
    def __init__(self):
        super().__init__(model=SimpleNamespace(path=""), cpuparams=SimpleNamespace(), cpuparams_batch=SimpleNamespace(),
                         hostnames=[])


class Server:
    def __init__(self, params):
        if WHEN == "load":
            crash()
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(params.hostnames[0])
        listener.listen()
        threading.Thread(target=self._answer, args=(listener,), daemon=True).start()

    def _answer(self, listener) -> None:
        client, _ = listener.accept()
        request = b""
        while b"\r\n\r\n" not in request:
            request += client.recv(65536)
        client.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
        for piece in PIECES:
            chunk = {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
            client.sendall(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        threading.Event().wait(0.3)  # as a crash mid-answer, after the client has read these
        crash()

    def handle_metrics(self) -> str:
        return "llamacpp:requests_processing 1\n"
