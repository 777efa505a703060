"""conv's small HTTP client against raw sockets: every framing a server may use."""

import socket
import threading

import pytest

from conv.providers.http import request
from conv.providers.wire import ProtocolError


def serve(raw: bytes):
    """A one-shot server that answers any request with ``raw`` and closes."""
    listener = socket.create_server(("127.0.0.1", 0))
    seen = []

    def run():
        conn, _ = listener.accept()
        data = b""
        while b"\r\n\r\n" not in data:
            data += conn.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
        while len(body) < length:
            body += conn.recv(65536)
        seen.append((head, body))
        conn.sendall(raw)
        conn.close()
        listener.close()

    threading.Thread(target=run, daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}/v1/chat", seen


def lines(response):
    out = []
    while line := response.readline():
        out.append(line)
    return out


def test_chunked_lines_are_joined_across_chunks():
    url, seen = serve(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n"
        b"7\r\ndata: a\r\n" b"6\r\nbc\n\nda\r\n" b"5\r\nta: d\r\n" b"1\r\n\n\r\n" b"0\r\n\r\n"
    )
    response = request(url, b'{"x": 1}', {"Content-Type": "application/json"}, 5, 5)
    assert response.status == 200 and response.getheader("content-type") == "text/event-stream"
    assert lines(response) == [b"data: abc\n", b"\n", b"data: d\n"]
    head, body = seen[0]
    assert head.startswith(b"POST /v1/chat HTTP/1.1\r\n") and b"Host: 127.0.0.1:" in head and body == b'{"x": 1}'


def test_content_length_and_close_delimited_bodies():
    url, _ = serve(b"HTTP/1.1 429 Too Many\r\nRetry-After: 2\r\nContent-Length: 5\r\n\r\nhello, and more")
    response = request(url, b"{}", {}, 5, 5)
    assert (response.status, response.getheader("Retry-After"), response.read()) == (429, "2", b"hello")
    url, _ = serve(b"HTTP/1.0 200 OK\r\n\r\nline one\nline two")
    assert lines(request(url, b"{}", {}, 5, 5)) == [b"line one\n", b"line two"]


@pytest.mark.parametrize(
    "raw",
    [
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nshort",
        b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ],
)
def test_a_cut_or_garbled_body_is_a_protocol_error(raw):
    url, _ = serve(raw)
    with pytest.raises(ProtocolError):
        lines(request(url, b"{}", {}, 5, 5))


@pytest.mark.parametrize("raw", [b"", b"SSH-2.0-OpenSSH\r\n", b"HTTP/1.1 200 OK\r\nX: y"])
def test_something_that_is_not_http_is_a_protocol_error(raw):
    url, _ = serve(raw)
    with pytest.raises(ProtocolError):
        request(url, b"{}", {}, 5, 5)
