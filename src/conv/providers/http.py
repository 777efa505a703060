"""A minimal HTTP/1.1 client for providers: one request, one response, then the
connection closes.

The standard library's http.client would do, but it imports the email
package and ssl on every run: 15–20 ms of a follow-up's 120 ms budget. This
speaks the small part of HTTP/1.1 a chat API needs (a request with a JSON
body; a response delimited by Content-Length, chunked encoding or the
connection's end) and loads ssl only for https.
"""

import socket
from urllib.parse import unquote, urlsplit

MAX_HEADER_LINE = 65536


class ProtocolError(OSError):
    """The server's bytes are not the HTTP we asked for."""


class Response:
    def __init__(self, sock: socket.socket):
        self._sock = sock
        self._file = sock.makefile("rb")
        self.status, self.headers = self._read_head()
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            self._left = 0  # bytes left in the current chunk
            self._mode = "chunked"
        elif "content-length" in self.headers:
            try:
                self._left = int(self.headers["content-length"])
            except ValueError:
                raise ProtocolError("bad Content-Length") from None
            self._mode = "length"
        else:
            self._left, self._mode = -1, "close"
        self._buffer = b""

    def _line(self) -> bytes:
        line = self._file.readline(MAX_HEADER_LINE + 1)
        if len(line) > MAX_HEADER_LINE:
            raise ProtocolError("header line too long")
        return line

    def _read_head(self) -> tuple[int, dict[str, str]]:
        status_line = self._line().decode("latin-1")
        parts = status_line.split(None, 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
            raise ProtocolError(f"not an HTTP response: {status_line.strip()[:60]!r}" if status_line else "the server closed the connection without answering")
        headers: dict[str, str] = {}
        while (line := self._line()) not in (b"\r\n", b"\n"):
            if not line:
                raise ProtocolError("the connection closed inside the response headers")
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        return int(parts[1]), headers

    def getheader(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def _next_block(self) -> bytes:
        """The next piece of the body (b"" at its end)."""
        if self._mode == "close":
            return self._file.read1(65536)
        if self._mode == "length":
            if self._left <= 0:
                return b""
            data = self._file.read1(min(self._left, 65536))
            if not data:
                raise ProtocolError("the connection closed before the promised length")
            self._left -= len(data)
            return data
        if self._left == 0:  # chunked: at a chunk header
            size_line = self._line()
            try:
                self._left = int(size_line.split(b";")[0].strip(), 16)
            except ValueError:
                raise ProtocolError("bad chunk size" if size_line else "the connection closed inside the body") from None
            if self._left == 0:
                self._mode, self._left = "length", 0  # the end: trailers are not read
                return b""
        data = self._file.read1(min(self._left, 65536))
        if not data:
            raise ProtocolError("the connection closed inside a chunk")
        self._left -= len(data)
        if self._left == 0:
            self._line()  # the CRLF after each chunk
        return data

    def readline(self) -> bytes:
        while b"\n" not in self._buffer:
            block = self._next_block()
            if not block:
                line, self._buffer = self._buffer, b""
                return line
            self._buffer += block
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line + b"\n"

    def read(self, limit: int = 1 << 30) -> bytes:
        out = [self._buffer]
        size = len(self._buffer)
        self._buffer = b""
        while size < limit and (block := self._next_block()):
            out.append(block)
            size += len(block)
        return b"".join(out)[:limit]

    def close(self) -> None:
        self._file.close()
        self._sock.close()


def request(
    url: str, body: bytes | None, headers: dict[str, str], connect_timeout: float, read_timeout: float
) -> Response:
    """Send a POST (a GET when there is no body) and read the response's head. Raises OSError (ConnectionRefusedError,
    TimeoutError, ProtocolError …) for anything that goes wrong on the way."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    sock = socket.create_connection((parts.hostname, port), timeout=connect_timeout)
    try:
        if parts.scheme == "https":
            import ssl

            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=parts.hostname)
        sock.settimeout(read_timeout)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host = parts.hostname if parts.port is None else f"{parts.hostname}:{parts.port}"
        method, length = ("GET", []) if body is None else ("POST", [f"Content-Length: {len(body)}"])
        head = [f"{method} {target} HTTP/1.1", f"Host: {host}", *length, "Connection: close"]
        head += [f"{k}: {v}" for k, v in (_basic_auth(parts) | headers).items()]
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + (body or b""))
        return Response(sock)
    except BaseException:
        sock.close()
        raise


def _basic_auth(parts) -> dict[str, str]:
    """``http://user:password@host/…`` as curl reads it: HTTP Basic auth (an
    Authorization header given explicitly, e.g. an API key's, wins)."""
    if "@" not in parts.netloc:
        return {}
    from base64 import b64encode

    pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
    return {"Authorization": "Basic " + b64encode(pair.encode()).decode("ascii")}
