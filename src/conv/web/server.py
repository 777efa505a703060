"""The HTTP side of ``conv serve`` (the standard library's threading
server: nothing heavy is imported to start it). Safe by construction:

- it binds 127.0.0.1 only, and answers only requests whose ``Host`` is its
  own address and port (a DNS rebinding page names another host) and whose
  ``Origin``, when sent, is its own, refusing what a browser marks as sent
  from another site;
- a token printed at start is asked for (in the URL once, as Jupyter does;
  then an HttpOnly, SameSite=Strict cookie), compared in constant time;
- GET is all it answers (nothing changes anything), every page with a
  Content-Security-Policy that allows its own stylesheet and script only
  (no inline script, no frame, nothing fetched from elsewhere);
- ``/events`` tells an open page when the store's head moves (server-sent
  events, the head read twice a second), so what is captured or imported
  meanwhile appears without a reload.

Each request reads the store through a workspace of its own (SQLite's
connections stay with their thread), one page at a time."""

import hmac
import json
import os
import re
import secrets
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from ..errors import ConvError, RefError

STATIC = os.path.join(os.path.dirname(__file__), "static")
COOKIE = "conv_token"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "base-uri 'self'; form-action 'self'; frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "X-Frame-Options": "DENY", "Cache-Control": "no-store", "Cross-Origin-Resource-Policy": "same-origin",
           "Cross-Origin-Opener-Policy": "same-origin"}
_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_ROUTE = re.compile(r"/c/([^/]+)(/versions|/diff)?")
POLL = 0.5  # seconds between two looks at the store's head, for /events


class Viewer(ThreadingHTTPServer):
    daemon_threads = True  # Ctrl-C never waits for an open page's event stream

    def __init__(self, port: int, workspace, head):
        """``workspace()`` opens the store for one request; ``head()`` reads its head (cheaply: /events)."""
        self.workspace, self.head, self.token = workspace, head, secrets.token_urlsafe(24)
        # Every page under a path of its own, and the cookie with it: a cookie goes to every port of a host,
        # so another program listening on 127.0.0.1 would be sent it, unless it asked for this path
        self.prefix = "/" + secrets.token_urlsafe(9)
        self.render_lock, self.stopping = threading.Lock(), threading.Event()
        super().__init__(("127.0.0.1", port), _Handler)
        self.hosts = {f"127.0.0.1:{self.server_port}", f"localhost:{self.server_port}"}
        self.origins = {f"http://{host}" for host in self.hosts}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}{self.prefix}/?token={self.token}"


class _Handler(BaseHTTPRequestHandler):
    server_version = "conv"
    sys_version = ""
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:  # noqa: A002 - the standard library's name
        pass  # a page's every request on the terminal would drown what conv serve says

    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        refused = self._refused()
        if refused:
            return self._send(refused[0], refused[1], "text/plain; charset=utf-8")
        url, prefix = urlsplit(self.path), self.server.prefix
        if url.path == prefix:
            return self._send(HTTPStatus.MOVED_PERMANENTLY, "", "text/plain", {"Location": f"{prefix}/"})
        if not url.path.startswith(f"{prefix}/"):
            return self._send(HTTPStatus.NOT_FOUND, "no such page: open the address conv serve printed",
                              "text/plain; charset=utf-8")
        path = url.path[len(prefix):]
        query = dict(parse_qsl(url.query, keep_blank_values=True))
        if "token" in query:
            if not hmac.compare_digest(query["token"], self.server.token):
                return self._send(HTTPStatus.FORBIDDEN, "a wrong token: open the address conv serve printed",
                                  "text/plain; charset=utf-8")
            rest = "&".join(f"{k}={v}" for k, v in parse_qsl(url.query, keep_blank_values=True) if k != "token")
            return self._send(HTTPStatus.SEE_OTHER, "", "text/plain", {
                "Location": url.path + (f"?{rest}" if rest else ""),
                "Set-Cookie": f"{COOKIE}={self.server.token}; HttpOnly; SameSite=Strict; Path={prefix}/"})
        if not hmac.compare_digest(self._cookie(), self.server.token):
            return self._send(HTTPStatus.UNAUTHORIZED, "open the address conv serve printed (it holds the token)",
                              "text/plain; charset=utf-8")
        if path == "/events":
            return self._events()
        if path == "/favicon.ico":
            return self._send(HTTPStatus.NO_CONTENT, "", "image/x-icon")
        if path.startswith("/static/"):
            return self._static(path[len("/static/"):])
        self._page(path, query)

    def do_POST(self) -> None:  # noqa: N802
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, "conv serve only shows: GET", "text/plain", {"Allow": "GET"})

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = do_TRACE = do_CONNECT = do_POST  # noqa: N815

    def send_error(self, code, message=None, explain=None) -> None:
        """What the standard library answers itself (a method it has no handler for, a request it cannot
        read) with this server's headers too, as one line of text."""
        self.close_connection = True
        self._send(code, f"{code} {message or HTTPStatus(code).phrase}", "text/plain; charset=utf-8",
                   {"Connection": "close"})

    def _refused(self) -> tuple | None:
        """Why the request is not answered (another Host: DNS rebinding; another Origin or site), or None."""
        if self.headers.get("Host", "") not in self.server.hosts:
            return HTTPStatus.MISDIRECTED_REQUEST, "not this server's host: conv serve answers 127.0.0.1 only"
        origin = self.headers.get("Origin")
        if origin is not None and origin not in self.server.origins:
            return HTTPStatus.FORBIDDEN, "a page of another origin: refused"
        if self.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
            return HTTPStatus.FORBIDDEN, "a request from another site: refused"
        return None

    def _cookie(self) -> str:
        for part in self.headers.get("Cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == COOKIE:
                return value
        return ""

    def _page(self, path: str, query: dict) -> None:
        from . import charts, conversation, listing, versions

        found = _ROUTE.fullmatch(path)
        try:
            with self.server.render_lock:
                ws = self.server.workspace()
                if path == "/":
                    body, kind = listing.conversations(ws, query), "text/html"
                elif path == "/api/search":
                    body, kind = json.dumps(listing.search_data(ws, query)), "application/json"
                elif path == "/stats":
                    body, kind = charts.stats_page(ws, query), "text/html"
                elif found and _ID.fullmatch(found[1]):
                    conv_id = ws.resolve(found[1])
                    view = {None: conversation.conversation, "/versions": versions.versions}.get(found[2])
                    body = view(ws, conv_id) if view else versions.diff(ws, conv_id, query)
                    kind = "text/html"
                else:
                    return self._send(HTTPStatus.NOT_FOUND, "no such page", "text/plain; charset=utf-8")
        except RefError as exc:
            return self._send(HTTPStatus.NOT_FOUND, exc.message, "text/plain; charset=utf-8")
        except ConvError as exc:
            return self._send(HTTPStatus.BAD_REQUEST, exc.message, "text/plain; charset=utf-8")
        if kind == "text/html":  # its links are relative: to this server's own path
            body = body.replace("<head>", f'<head><base href="{self.server.prefix}/">', 1)
        self._send(HTTPStatus.OK, body, f"{kind}; charset=utf-8")

    def _static(self, name: str) -> None:
        kinds = {"conv.css": "text/css", "conv.js": "text/javascript"}
        if name == "code.css":
            from .markup import stylesheet

            return self._send(HTTPStatus.OK, stylesheet(), "text/css; charset=utf-8")
        if name not in kinds:
            return self._send(HTTPStatus.NOT_FOUND, "no such file", "text/plain")
        with open(os.path.join(STATIC, name), encoding="utf-8") as found:
            self._send(HTTPStatus.OK, found.read(), f"{kinds[name]}; charset=utf-8")

    def _events(self) -> None:
        """The store's head, now and each time it moves, until the page goes or the server stops."""
        self.send_response(HTTPStatus.OK)
        for name, value in {**HEADERS, "Content-Type": "text/event-stream", "Connection": "close"}.items():
            self.send_header(name, value)
        self.end_headers()
        self.close_connection = True
        last, quiet = None, 0.0
        try:
            while not self.server.stopping.is_set():
                head = self.server.head() or ""
                if head != last:
                    self.wfile.write(f"event: head\ndata: {head}\n\n".encode())
                    self.wfile.flush()
                    last, quiet = head, 0.0
                elif quiet >= 15:
                    self.wfile.write(b": still here\n\n")  # a comment: what keeps a proxy from closing it
                    self.wfile.flush()
                    quiet = 0.0
                time.sleep(POLL)
                quiet += POLL
        except OSError:
            return  # the page went away

    def _send(self, status, body: str, kind: str, more: dict | None = None) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        for name, value in {**HEADERS, "Content-Type": kind, "Content-Length": str(len(data)), **(more or {})}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def serve(port: int, open_browser: bool, said) -> None:
    """Serve the store until Ctrl-C (which ends the process as conv's Ctrl-C does: 130); ``said`` hears the
    address first (the token in it)."""
    import errno

    from ..services.workspace import Workspace
    from ..terminal.render import notice

    store = Workspace(notice).store  # its head only, read for /events (no index, no config)
    try:
        viewer = Viewer(port, lambda: Workspace(notice), store.head)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ConvError(f"port {port} on 127.0.0.1 is taken (another conv serve?)",
                            "Stop it, or choose another: conv serve --port N") from None
        raise ConvError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    Workspace(notice).index.refresh()  # built before the address is given: the first page is quick
    said(viewer.url)
    if open_browser:
        import webbrowser

        threading.Thread(target=webbrowser.open, args=(viewer.url,), daemon=True).start()
    try:
        viewer.serve_forever(poll_interval=0.2)
    finally:
        viewer.stopping.set()
        viewer.server_close()
