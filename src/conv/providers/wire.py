"""HTTP/1.1 on a connected socket, as far as a chat API needs it: a request
written whole, a response's head, and its body delimited by Content-Length,
chunked encoding or the connection's end, read as it arrives. http.py finds
the socket (directly, through a proxy, over TLS or a Unix socket)."""

import socket

MAX_HEADER_LINE = 65536


class ProtocolError(OSError):
    """The server's bytes are not the HTTP we asked for."""


def _line(file) -> bytes:
    line = file.readline(MAX_HEADER_LINE + 1)
    if len(line) > MAX_HEADER_LINE:
        raise ProtocolError("header line too long")
    return line


def read_head(file) -> tuple[int, str, dict[str, str]]:
    """(status, reason, headers with lower-case names) of a response."""
    status_line = _line(file).decode("latin-1")
    parts = status_line.split(None, 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise ProtocolError(f"not an HTTP response: {status_line.strip()[:60]!r}" if status_line
                            else "the server closed the connection without answering")
    headers: dict[str, str] = {}
    while (line := _line(file)) not in (b"\r\n", b"\n"):
        if not line:
            raise ProtocolError("the connection closed inside the response headers")
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(parts[1]), parts[2].strip() if len(parts) > 2 else "", headers


class Response:
    def __init__(self, sock: socket.socket):
        self._sock = sock
        self._file = sock.makefile("rb")
        self.status, _, self.headers = read_head(self._file)
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
            size_line = _line(self._file)
            try:
                self._left = int(size_line.split(b";")[0].strip(), 16)
            except ValueError:
                raise ProtocolError("bad chunk size" if size_line
                                    else "the connection closed inside the body") from None
            if self._left == 0:
                self._mode, self._left = "length", 0  # the end: trailers are not read
                return b""
        data = self._file.read1(min(self._left, 65536))
        if not data:
            raise ProtocolError("the connection closed inside a chunk")
        self._left -= len(data)
        if self._left == 0:
            _line(self._file)  # the CRLF after each chunk
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

    def chunks(self):
        """The rest of the body, piece by piece as it arrives (a download's)."""
        if self._buffer:
            yield self._buffer
            self._buffer = b""
        while block := self._next_block():
            yield block

    def close(self) -> None:
        self._file.close()
        self._sock.close()


def send(sock: socket.socket, target: str, head: list[str], body: bytes | None, headers: dict[str, str]) -> Response:
    """Write the request (a POST with ``body``, else a GET) and read the response's head."""
    method, length = ("GET", []) if body is None else ("POST", [f"Content-Length: {len(body)}"])
    lines = [f"{method} {target} HTTP/1.1", *head, *length, "Connection: close",
             *(f"{k}: {v}" for k, v in headers.items())]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))
    return Response(sock)
