"""The proxy rules conv reads from the environment, against curl's documented
behaviour (curl(1) ENVIRONMENT, CURLOPT_NOPROXY, lib/noproxy.c), and the rows
where curl 7.88 agrees checked against the real curl on this machine."""

import base64
import subprocess

import pytest
from fakeserver import FakeServer

from conv.errors import ProviderError
from conv.providers.http import proxy_variable
from conv.providers.proxy import DEFAULT_PORT, bypass, parse, route

# (host as urlsplit gives it, NO_PROXY with {port} for the server's port, exempt?, curl 7.88 agrees?)
TABLE = [
    ("example.com", "example.com", True, True),
    ("www.example.com", "example.com", True, True),  # the names under it
    ("www.example.com", ".example.com", True, True),
    ("example.com", ".example.com", True, True),  # a leading dot is ignored
    ("notexample.com", "example.com", False, True),  # a suffix must start at a dot
    ("example.com", "www.example.com", False, True),
    ("EXAMPLE.com", "example.COM", True, True),  # case does not count
    ("example.com.", "example.com", True, True),  # nor a trailing dot
    ("example.com", "example.com.", True, True),
    ("anything.org", "*", True, True),
    ("anything.org", "*,example.com", False, True),  # * only alone
    ("example.com", " foo.org ,, example.com ", True, True),
    ("example.com", "foo.org example.com", True, True),  # blanks part entries too
    ("example.com", "", False, True),
    ("localhost", "", False, True),  # localhost is proxied unless listed
    ("localhost", "localhost", True, True),
    ("localhost", "127.0.0.1", False, True),  # names are never resolved
    ("127.0.0.1", "localhost", False, True),
    ("127.0.0.1", "127.0.0.1", True, True),
    ("127.0.0.1", "127.0.0.2", False, True),
    ("127.0.0.1", "127.0.0.0/8", True, True),  # CIDR, curl >= 7.86
    ("127.0.0.1", "10.0.0.0/8", False, True),
    ("127.0.0.1", "127.0.0.1/32", True, True),
    ("127.0.0.1", "127.0.0.0/33", False, True),  # too long a prefix matches nothing
    ("127.0.0.1", "127.0.0.0/0", False, True),  # curl: /0 compares the whole address
    ("example.com", "example.com:1", False, True),  # another port
    ("::1", "::1", True, True),  # IPv6 without brackets, as curl's docs write it
    ("::1", "::2", False, True),
    ("::1", "::/64", True, False),  # IPv6 CIDR: curl 7.88 compares the text (fixed later)
    ("::1", "fd00::/8", False, True),
    ("::1", "[::1]", True, False),  # brackets allowed (for [::1]:PORT); curl 7.88 ignores them
    ("example.com", "example.com:{port}", True, False),  # HOST:PORT as httpx, Go, urllib; curl ignores it
    ("127.0.0.1", "127.0.0.1:{port}", True, False),
    ("::1", "[::1]:{port}", True, False),
]


@pytest.mark.parametrize("host, no_proxy, exempt, _", TABLE)
def test_no_proxy_matches_as_curl_documents(host, no_proxy, exempt, _):
    assert bypass(host, 8080, no_proxy.format(port=8080)) is exempt
    assert bypass(host, 8081, no_proxy.format(port=8080)) is (exempt and "{port}" not in no_proxy)


@pytest.fixture(scope="module")
def listeners():
    with FakeServer() as v4, FakeServer(host="::1") as v6:
        yield {4: v4.port, 6: v6.port}


@pytest.mark.parametrize("host, no_proxy, exempt", [row[:3] for row in TABLE if row[3]])
def test_curl_agrees(host, no_proxy, exempt, listeners):
    """curl with a dead proxy: exit 0 went direct (to the fake's 404), exit 7 tried the proxy."""
    port = listeners[6 if ":" in host else 4]
    url = f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"
    resolve = [] if ":" in host or host[0].isdigit() else ["--resolve", f"{host}:{port}:127.0.0.1"]
    env = {"PATH": "/usr/bin:/bin", "http_proxy": "http://127.0.0.1:1", "NO_PROXY": no_proxy.format(port=port)}
    done = subprocess.run(["curl", "-s", "-o", "/dev/null", "--max-time", "5", *resolve, url], env=env)
    assert done.returncode == (0 if exempt else 7)


@pytest.mark.parametrize(
    "scheme, env, expected",
    [
        ("https", {"https_proxy": "a", "HTTPS_PROXY": "b"}, "https_proxy"),  # lower case wins
        ("https", {"HTTPS_PROXY": "b", "all_proxy": "c"}, "HTTPS_PROXY"),  # the scheme's own first
        ("https", {"https_proxy": "", "HTTPS_PROXY": "b"}, "HTTPS_PROXY"),  # empty counts as unset
        ("https", {"all_proxy": "c", "ALL_PROXY": "d"}, "all_proxy"),
        ("https", {"ALL_PROXY": "d"}, "ALL_PROXY"),
        ("https", {"http_proxy": "a"}, None),
        ("http", {"http_proxy": "a", "ALL_PROXY": "d"}, "http_proxy"),
        ("http", {"HTTP_PROXY": "a"}, None),  # never read upper-case, as curl
        ("http", {"HTTP_PROXY": "a", "ALL_PROXY": "d"}, "ALL_PROXY"),
        ("http", {"https_proxy": "a"}, None),
    ],
)
def test_which_variable_names_the_proxy(scheme, env, expected, monkeypatch):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert proxy_variable(scheme) == expected


def test_no_proxy_lower_case_wins(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "proxy.corp:3128")
    monkeypatch.setenv("no_proxy", "internal.corp")
    monkeypatch.setenv("NO_PROXY", "example.com")
    assert route("HTTPS_PROXY", "api.internal.corp", 443) is None
    assert route("HTTPS_PROXY", "example.com", 443) == ("proxy.corp", 3128, None, "HTTPS_PROXY")
    monkeypatch.setenv("no_proxy", "")  # empty: NO_PROXY is read
    assert route("HTTPS_PROXY", "example.com", 443) is None


def test_proxy_urls_as_curl_reads_them():
    assert parse("HTTPS_PROXY", "127.0.0.1:3128") == ("127.0.0.1", 3128, None, "HTTPS_PROXY")  # http:// assumed
    assert parse("ALL_PROXY", "http://proxy.corp") == ("proxy.corp", DEFAULT_PORT, None, "ALL_PROXY")
    assert DEFAULT_PORT == 1080
    proxy = parse("https_proxy", " http://alice:s3cr3t%2Dpw@[::1]:3128/ ")
    assert proxy.authorization == "Basic " + base64.b64encode(b"alice:s3cr3t-pw").decode()  # percent-decoded
    assert (proxy.host, proxy.port, proxy.name) == ("::1", 3128, "http://[::1]:3128")


@pytest.mark.parametrize("value", ["socks5://bob:hunter2@proxy.corp:1080", "https://bob:hunter2@proxy.corp",
                                   "http://bob:hunter2@proxy.corp:port", "http://bob:hunter2@:3128"])
def test_a_proxy_url_conv_cannot_use_is_one_line_without_the_password(value):
    with pytest.raises(ProviderError) as caught:
        parse("HTTPS_PROXY", value)
    assert "HTTPS_PROXY" in str(caught.value) and "hunter2" not in str(caught.value) and "bob" not in str(caught.value)
