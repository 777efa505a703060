"""A minimal HTTP/1.1 client for providers: one request, one response, then the
connection closes.

The standard library's http.client would do, but it imports the email
package and ssl on every run: 15–20 ms of a follow-up's 100 ms budget. This
speaks the small part of HTTP/1.1 a chat API needs (wire.py: a request with
a JSON body, a response read as it arrives), goes through a proxy when the environment names one
(proxy.py, loaded only then), follows 307/308 redirects, and loads ssl
(tls.py) only for https. ``http+unix://%2Fpath%2Fto.sock/…`` speaks to a
Unix socket (the local model's host), never through a proxy.
"""

import os
import socket
from urllib.parse import unquote, urljoin, urlsplit

from .wire import ProtocolError, Response, read_head, send

MAX_REDIRECTS = 5  # an API moved once or twice; curl allows 50, httpx 20
# dropped when a redirect leaves the first request's scheme, host and port, as curl
# and httpx drop Authorization; x-api-key is Anthropic's key, a credential too
CREDENTIALS = ("authorization", "x-api-key")


class Failure(OSError):
    """A failure on the way that says what to do about it (the proxy, the
    server's certificate, a redirect): ``str()`` is what, ``hint`` the fix."""

    def __init__(self, what: str, hint: str):
        super().__init__(what)
        self.hint = hint


def request(
    url: str, body: bytes | None, headers: dict[str, str], connect_timeout: float, read_timeout: float,
    ca_file: str | None = None,
) -> Response:
    """Send a POST (a GET when there is no body) and read the response's head.

    307 and 308 are followed with the same method and body (a GET follows
    301–303 too), at most MAX_REDIRECTS times, never from https to http; the
    credentials are dropped once a redirect leaves the first origin. Raises
    OSError (ConnectionRefusedError, TimeoutError, ProtocolError, Failure …)
    for anything that goes wrong on the way."""
    start, first = url, _origin(urlsplit(url))
    for _ in range(MAX_REDIRECTS + 1):
        parts = urlsplit(url)
        if _origin(parts) != first:
            headers = {k: v for k, v in headers.items() if k.lower() not in CREDENTIALS}
        response = _exchange(parts, body, headers, connect_timeout, read_timeout, ca_file)
        location = response.getheader("location")
        follow = response.status in (307, 308) or body is None and response.status in (301, 302, 303)
        if not location or not follow:
            return response
        response.close()
        url = urljoin(url, location)
        scheme = urlsplit(url).scheme
        if scheme != "https" and (parts.scheme == "https" or scheme != "http"):
            raise Failure(
                f"{_show(parts)} redirected to {_show(urlsplit(url))}, which conv does not follow",
                "conv follows redirects to https, and to http only from http: set the base URL to where it leads",
            )
    raise Failure(f"more than {MAX_REDIRECTS} redirects from {_show(urlsplit(start))}",
                  "Set the base URL to where they lead")


def _origin(parts) -> tuple:
    return parts.scheme, (parts.hostname or "").lower(), parts.port


def _show(parts) -> str:
    """A URL for a message: no credentials, no query."""
    netloc = parts.netloc.rpartition("@")[2]
    return f"{parts.scheme}://{netloc}{parts.path}"


def _authority(host: str, port: int | None) -> str:
    """HOST[:PORT] as a Host header and CONNECT write it: IPv6 literals in brackets."""
    host = f"[{host}]" if ":" in host else host
    return host if port is None else f"{host}:{port}"


def proxy_variable(scheme: str) -> str | None:
    """The variable that names the proxy for ``scheme``, in curl's order:
    https_proxy, HTTPS_PROXY (an http target reads http_proxy, lower case
    only, as curl does), then all_proxy, ALL_PROXY; an empty one counts as
    unset. A few dict look-ups: proxy.py loads only when one is set."""
    names = ("https_proxy", "HTTPS_PROXY") if scheme == "https" else ("http_proxy",)
    return next((name for name in (*names, "all_proxy", "ALL_PROXY") if os.environ.get(name)), None)


def _exchange(parts, body: bytes | None, headers: dict[str, str], connect_timeout: float, read_timeout: float,
              ca_file: str | None) -> Response:
    """One request and the head of its response, directly or through the proxy."""
    if parts.scheme == "http+unix":
        return _exchange_unix(parts, body, headers, connect_timeout, read_timeout)
    https = parts.scheme == "https"
    host, port = parts.hostname, parts.port or (443 if https else 80)
    proxy, variable = None, proxy_variable(parts.scheme)
    if variable:
        from .proxy import route

        proxy = route(variable, host, port)
    sock = _connect((proxy.host, proxy.port) if proxy else (host, port), connect_timeout, proxy)
    try:
        if proxy and https:
            _tunnel(sock, proxy, _authority(host, port))
        if https:
            sock = _secure(sock, host, port, ca_file)
        sock.settimeout(read_timeout)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        head = [f"Host: {_authority(host, parts.port)}"]
        if proxy and not https:  # absolute form, for the proxy to forward
            target = f"http://{_authority(host, parts.port)}{target}"
            head += [f"Proxy-Authorization: {proxy.authorization}"] if proxy.authorization else []
        response = send(sock, target, head, body, _basic_auth(parts) | headers)
        if proxy and response.status == 407:
            raise Failure(*proxy.refused())
        return response
    except BaseException:
        sock.close()
        raise


def _exchange_unix(parts, body: bytes | None, headers: dict[str, str], connect_timeout: float,
                   read_timeout: float) -> Response:
    """One request over the Unix socket whose path is the URL's (quoted) host part."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(connect_timeout)
        sock.connect(unquote(parts.netloc))
        sock.settimeout(read_timeout)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return send(sock, target, ["Host: localhost"], body, headers)
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


def _connect(address: tuple[str, int], timeout: float, proxy) -> socket.socket:
    """A connection to the server, or to the proxy (whose failures name it)."""
    host, port = address
    if host.isascii():  # as bytes: a str name would be encoded by the idna codec, loaded for it (1.4 ms)
        host = host.encode()
    try:
        return socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        if proxy is None:
            raise
        why = "connection refused" if isinstance(exc, ConnectionRefusedError) else (
            f"no answer within {timeout:g} s" if isinstance(exc, TimeoutError) else exc.strerror or str(exc))
        raise Failure(*proxy.unreachable(why)) from None


def _secure(sock: socket.socket, host: str, port: int, ca_file: str | None) -> socket.socket:
    """TLS on ``sock``, verifying that the certificate names ``host``."""
    import ssl

    from .tls import context, untrusted

    try:
        return context(ca_file).wrap_socket(sock, server_hostname=host)
    except ssl.SSLCertVerificationError as exc:
        raise Failure(*untrusted(exc, _authority(host, port))) from None


def _tunnel(sock: socket.socket, proxy, target: str) -> None:
    """Ask the proxy for a tunnel to ``target`` (CONNECT); TLS then runs inside it."""
    head = [f"CONNECT {target} HTTP/1.1", f"Host: {target}"]
    head += [f"Proxy-Authorization: {proxy.authorization}"] if proxy.authorization else []
    sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
    file = sock.makefile("rb")  # the proxy sends nothing after its head until TLS starts
    try:
        status, reason, _ = read_head(file)
    except TimeoutError:
        raise Failure(*proxy.unreachable(f"no answer to CONNECT within {sock.gettimeout():g} s")) from None
    except ProtocolError as exc:
        raise Failure(*proxy.unreachable(f"its answer to CONNECT is not HTTP ({exc})")) from None
    finally:
        file.close()
    if status in (401, 407):  # tinyproxy answers wrong credentials with 401
        raise Failure(*proxy.refused())
    if not 200 <= status < 300:
        raise Failure(*proxy.declined(target, f"{status} {reason}".strip()))
