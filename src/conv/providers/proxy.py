"""The proxy a request goes through, and the hosts that go around it, read
from the environment as curl reads them. http.py finds the variable (curl's
order: https_proxy, HTTPS_PROXY or, for http, http_proxy; then all_proxy,
ALL_PROXY) and loads this module only when one is set.

- A proxy URL is ``[http://][USER[:PASSWORD]@]HOST[:PORT]``: no scheme means
  http://, no port 1080 (curl's defaults). USER and PASSWORD are
  percent-decoded and sent as ``Proxy-Authorization: Basic``; no message
  shows them (``Proxy.name`` leaves them out, and so does every error).
- ``no_proxy``, else ``NO_PROXY`` (empty counts as unset), as curl ≥ 7.86:
  entries apart by commas or blanks; ``*`` alone exempts every host; a name
  exempts itself and the names under it, with or without a leading dot
  (``example.com`` and ``.example.com`` both exempt ``example.com`` and
  ``api.example.com``, never ``notexample.com``), ignoring case and a
  trailing dot; an IP address or CIDR range (``10.0.0.0/8``, ``fd00::/8``)
  exempts the addresses in it when the URL names an address. Names are
  never resolved: ``localhost`` does not exempt ``127.0.0.1``, and nothing is
  exempt by default, localhost included (curl's behaviour: an Ollama on
  127.0.0.1 is reached through the proxy unless NO_PROXY lists it).
  ``HOST:PORT`` exempts HOST on that port only: curl ignores such entries,
  httpx, Go and Python's urllib honour them, and so does conv.

Own code, not a library, by import time (``python -X importtime``, on top of
what an ask has loaded; fastest of 15 runs on this 2-core machine, medians
2–4 times that under load): urllib.request 30 ms (http.client, email, ssl;
and it reads HTTP_PROXY upper-case and knows no CIDR ranges), httpx 94 ms (not
a dependency), this module 0.9 ms (1.1 median).
"""

import binascii
import os
import socket
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

from ..errors import ProviderError

DEFAULT_PORT = 1080  # curl's, for a proxy URL that names none


class Proxy(NamedTuple):
    host: str
    port: int
    authorization: str | None  # the Proxy-Authorization value, from the URL's USER:PASSWORD
    variable: str  # the environment variable that named it, for the messages

    @property
    def name(self) -> str:
        """The proxy as messages show it: without its credentials."""
        return f"http://{f'[{self.host}]' if ':' in self.host else self.host}:{self.port}"

    def unreachable(self, why: str) -> tuple[str, str]:
        return (f"cannot reach the proxy {self.name} (from {self.variable}): {why}",
                f"Check {self.variable}, or list the server's host in NO_PROXY")

    def refused(self) -> tuple[str, str]:
        if self.authorization:
            return (f"the proxy {self.name} (from {self.variable}) refused its credentials (407)",
                    f"Check the user name and password in {self.variable}")
        return (f"the proxy {self.name} (from {self.variable}) asks for credentials (407)",
                f"Put them in {self.variable} before the host: USER:PASSWORD@HOST:PORT after http://")

    def declined(self, target: str, status: str) -> tuple[str, str]:
        return (f"the proxy {self.name} (from {self.variable}) would not connect to {target} ({status})",
                "Ask its administrators, or list the host in NO_PROXY")


def route(variable: str, host: str, port: int) -> Proxy | None:
    """The proxy that ``variable`` names for HOST:PORT, or None when NO_PROXY exempts it."""
    no_proxy = os.environ.get("no_proxy") or os.environ.get("NO_PROXY") or ""
    if no_proxy and bypass(host, port, no_proxy):
        return None
    return parse(variable, os.environ[variable])


def parse(variable: str, value: str) -> Proxy:
    url = value.strip()
    parts = urlsplit(url if "://" in url else "http://" + url)
    if parts.scheme.lower() != "http":
        raise ProviderError(f"{variable} names a {parts.scheme}:// proxy, which conv does not speak",
                            "Set it to the proxy's http://HOST:PORT (https goes through it in a tunnel)")
    try:
        port = parts.port or DEFAULT_PORT
    except ValueError:
        port = 0
    if not parts.hostname or not port:  # the value is never shown: it may hold a password
        raise ProviderError(f"{variable} is not a proxy URL conv can read",
                            "Set it as http://HOST:PORT (with credentials, USER:PASSWORD@HOST:PORT after http://)")
    authorization = None
    if "@" in parts.netloc:
        pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}".encode()
        authorization = "Basic " + binascii.b2a_base64(pair, newline=False).decode()
    return Proxy(parts.hostname, port, authorization, variable)


def bypass(host: str, port: int, no_proxy: str) -> bool:
    """Whether the NO_PROXY value ``no_proxy`` exempts HOST:PORT (an IPv6
    HOST without brackets, as urlsplit gives it)."""
    if no_proxy.strip() == "*":
        return True
    address = _address(host)
    name = host.lower().removesuffix(".")
    for entry in no_proxy.replace(",", " ").split():
        entry, entry_port = _split_port(entry)
        if entry_port is not None and entry_port != port:
            continue
        if address is not None:
            if _in_range(address, entry):
                return True
            continue
        entry = entry.lower().removesuffix(".").removeprefix(".")
        if entry and (name == entry or name.endswith("." + entry)):
            return True
    return False


def _split_port(entry: str) -> tuple[str, int | None]:
    """(host, port or None) of a NO_PROXY entry: ``host:80``, ``[::1]:80``, a bare IPv6 address."""
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        port = rest.removeprefix(":")
    elif entry.count(":") == 1:
        host, _, port = entry.partition(":")
    else:
        return entry, None
    if not port:
        return host, None
    return (host, int(port)) if port.isdigit() else ("", None)


def _address(text: str) -> tuple[int, int] | None:
    """(bit width, value) of an IPv4 or IPv6 address, None for a name."""
    for family, width in ((socket.AF_INET, 32), (socket.AF_INET6, 128)):
        try:
            return width, int.from_bytes(socket.inet_pton(family, text), "big")
        except OSError:
            pass
    return None


def _in_range(address: tuple[int, int], entry: str) -> bool:
    """Whether ``address`` is ``entry``, an address or a CIDR range. As in curl,
    a prefix of 0 (or none) compares the whole address, and one too long matches nothing."""
    network, _, bits = entry.partition("/")
    found = _address(network)
    if found is None or found[0] != address[0] or bits and not bits.isdigit():
        return False
    width, prefix = address[0], int(bits or 0)
    if prefix > width:
        return False
    return (address[1] ^ found[1]) >> (width - (prefix or width)) == 0
