"""Networks as curl handles them: a real tinyproxy (Debian's) on 127.0.0.1 with
a config of the test's own, a real TLS server (tests/fakeserver.py behind
Python's ssl) whose CA and certificate openssl makes in the test, IPv6
loopback, redirects. conv runs as a real process; the proxy's own log says
what went through it.
"""

import base64
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import conv_env, fails, git, ok
from fakeserver import DEFAULT_REPLY, FakeServer

USER, PASSWORD = "alice", "s3cr3t-pw"  # tinyproxy's BasicAuth takes [-a-z0-9._] only
QUOTED = "s3cr3t%2Dpw"  # the same password, percent-encoded in the proxy URL
KEY = "sk-test-key"


# -- the private CA and its server ---------------------------------------------------------
@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> Path:
    """ca.pem; server.pem / server.key for localhost, 127.0.0.1 and ::1 signed by
    it, and other.pem / other.key for example.test alone."""
    d = tmp_path_factory.mktemp("pki")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl = [["req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=conv test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]]
    for name, names in (("server", "DNS:localhost,IP:127.0.0.1,IP:::1"), ("other", "DNS:example.test")):
        (d / f"{name}.ext").write_text(
            f"subjectAltName={names}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n"
            "extendedKeyUsage=serverAuth\nauthorityKeyIdentifier=keyid,issuer\nsubjectKeyIdentifier=hash\n"
        )
        openssl += [["req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}"],
                    ["x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                     "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext"]]
    for cmd in openssl:
        subprocess.run(["openssl", *cmd], cwd=d, check=True, capture_output=True)
    return d


def serve_tls(pki: Path, name: str = "server") -> FakeServer:
    """The fake model server speaking https with a certificate from the private CA."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(pki / f"{name}.pem", pki / f"{name}.key")
    return FakeServer(tls=ctx)


@pytest.fixture
def tls_fake(pki):
    with serve_tls(pki) as server:
        yield server


def https_url(server: FakeServer) -> str:
    """The TLS fake by name, so the certificate's name is checked."""
    return f"https://localhost:{server.port}/v1"


# -- tinyproxy ---------------------------------------------------------------------------------
class Tinyproxy:
    """tinyproxy in the foreground with a config of its own on a free port; its log is its stderr."""

    def __init__(self, tmp: Path, auth: bool = False, extra: str = ""):
        self.port = free_port()
        self.log = tmp / f"tinyproxy-{self.port}.log"
        conf = tmp / f"tinyproxy-{self.port}.conf"
        conf.write_text(
            f"Port {self.port}\nListen 127.0.0.1\nAllow 127.0.0.1\nTimeout 30\nMaxClients 20\nLogLevel Connect\n"
            + (f"BasicAuth {USER} {PASSWORD}\n" if auth else "") + extra
        )
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(["tinyproxy", "-d", "-c", str(conf)], stdout=log, stderr=log)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                assert self.proc.poll() is None and time.monotonic() < deadline, self.log.read_text()
                time.sleep(0.05)

    def url(self, credentials: str = "") -> str:
        return f"http://{credentials}127.0.0.1:{self.port}"

    def requests(self) -> list[str]:
        """The request lines tinyproxy logged, e.g. ``CONNECT localhost:443 HTTP/1.1``."""
        return [line.split("): ", 1)[1] for line in self.log.read_text().splitlines()
                if "Request (file descriptor" in line]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def tinyproxy(tmp_path):
    proxy = Tinyproxy(tmp_path)
    yield proxy
    proxy.stop()


@pytest.fixture
def tinyproxy_auth(tmp_path):
    proxy = Tinyproxy(tmp_path, auth=True)
    yield proxy
    proxy.stop()


def answered(done) -> str:
    out = done.stdout.decode()
    assert DEFAULT_REPLY in out, (out, done.stderr.decode())
    return out


# -- (1) https through CONNECT, (6) http in absolute form, (2) NO_PROXY ----------------------------
def test_https_goes_through_a_connect_tunnel_to_a_private_ca_server(tinyproxy, tls_fake, pki):
    env = {"HTTPS_PROXY": tinyproxy.url(), "SSL_CERT_FILE": str(pki / "ca.pem"),
           "OPENAI_BASE_URL": https_url(tls_fake), "OPENAI_API_KEY": KEY}
    answered(ok("ask", "hello", env=env))
    assert tinyproxy.requests() == [f"CONNECT localhost:{tls_fake.port} HTTP/1.1"]
    assert tls_fake.headers[-1]["Authorization"] == f"Bearer {KEY}"  # sent inside the tunnel
    assert tls_fake.headers[-1]["Host"] == f"localhost:{tls_fake.port}"


def test_plain_http_goes_to_the_proxy_in_absolute_form_unless_no_proxy_exempts_it(tinyproxy, fake):
    env = {"http_proxy": tinyproxy.url()}
    answered(ok("ask", "hello", env=env))
    assert tinyproxy.requests() == [f"POST http://127.0.0.1:{fake.port}/v1/chat/completions HTTP/1.1"]
    assert fake.headers[-1]["Host"] == f"127.0.0.1:{fake.port}"
    for no_proxy in ("127.0.0.1", "127.0.0.0/8", f"example.com, 127.0.0.1:{fake.port}", "*"):
        answered(ok("ask", "hello", env={**env, "NO_PROXY": no_proxy}))
        assert len(tinyproxy.requests()) == 1, no_proxy  # tinyproxy never saw these
    assert len(fake.requests) == 5


def test_http_proxy_is_read_lower_case_only_as_curl_does(tinyproxy, fake):
    """curl never reads HTTP_PROXY (under CGI a request's Proxy: header arrives
    as HTTP_PROXY); HTTPS_PROXY and ALL_PROXY are read upper-case too."""
    answered(ok("ask", "hello", env={"HTTP_PROXY": tinyproxy.url()}))
    assert tinyproxy.requests() == []
    answered(ok("ask", "hello", env={"ALL_PROXY": tinyproxy.url()}))
    assert len(tinyproxy.requests()) == 1


# -- (3) a dead proxy -----------------------------------------------------------------------------
@pytest.mark.parametrize("variable", ["HTTPS_PROXY", "https_proxy", "ALL_PROXY"])
def test_a_dead_proxy_fails_in_one_line_naming_it_and_its_variable(variable, tls_fake, pki, store_path):
    dead = free_port()
    env = {variable: f"http://{USER}:{QUOTED}@127.0.0.1:{dead}", "SSL_CERT_FILE": str(pki / "ca.pem"),
           "OPENAI_BASE_URL": https_url(tls_fake)}
    line = fails("ask", "hello", code=3, env=env)
    assert f"cannot reach the proxy http://127.0.0.1:{dead} (from {variable}): connection refused" in line
    assert PASSWORD not in line and QUOTED not in line and USER not in line
    assert tls_fake.requests == []  # nothing went around the proxy
    assert "hello" in git(store_path, "log", "-p")  # the question is kept


def test_a_proxy_that_never_answers_connect_times_out_naming_it(tls_fake, pki):
    silent = socket.create_server(("127.0.0.1", 0))  # the kernel accepts; nothing ever answers
    with silent:
        ok("config", "set", "timeout.connect", "1")
        proxy = f"http://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        line = fails("ask", "hello", code=3, env={"HTTPS_PROXY": proxy, "OPENAI_BASE_URL": https_url(tls_fake),
                                                  "SSL_CERT_FILE": str(pki / "ca.pem")})
        assert time.monotonic() - started < 10
    assert f"cannot reach the proxy {proxy} (from HTTPS_PROXY): no answer to CONNECT within 1 s" in line


def test_a_proxy_that_refuses_the_tunnel_is_one_line_naming_it(tmp_path, tls_fake, pki):
    proxy = Tinyproxy(tmp_path, extra="ConnectPort 443\n")  # tunnels to port 443 only
    try:
        line = fails("ask", "hello", code=3, env={"https_proxy": proxy.url(), "OPENAI_BASE_URL": https_url(tls_fake),
                                                  "SSL_CERT_FILE": str(pki / "ca.pem")})
    finally:
        proxy.stop()
    assert proxy.requests() == [f"CONNECT localhost:{tls_fake.port} HTTP/1.1"]
    assert line.startswith(f"conv: error: the proxy {proxy.url()} (from https_proxy) would not connect to "
                           f"localhost:{tls_fake.port} (403 ")
    assert tls_fake.requests == []


# -- (4) proxy credentials -------------------------------------------------------------------------
def test_proxy_credentials_are_sent_and_never_shown_or_stored(tinyproxy_auth, tls_fake, fake, pki, conv_home,
                                                              store_path):
    base = {"SSL_CERT_FILE": str(pki / "ca.pem"), "OPENAI_BASE_URL": https_url(tls_fake), "OPENAI_API_KEY": KEY}
    outputs = []
    done = ok("ask", "through the tunnel", env={**base, "HTTPS_PROXY": tinyproxy_auth.url(f"{USER}:{QUOTED}@")})
    outputs.append(answered(done) + done.stderr.decode())
    assert tinyproxy_auth.requests() == [f"CONNECT localhost:{tls_fake.port} HTTP/1.1"]
    # plain http: Proxy-Authorization on the absolute-form request itself
    done = ok("ask", "plain", env={"http_proxy": tinyproxy_auth.url(f"{USER}:{QUOTED}@"), "OPENAI_BASE_URL": fake.url})
    outputs.append(answered(done) + done.stderr.decode())
    assert tinyproxy_auth.requests()[-1] == f"POST {fake.url}/chat/completions HTTP/1.1"

    refused = fails("ask", "no credentials", code=3, env={**base, "HTTPS_PROXY": tinyproxy_auth.url()})
    assert refused == (f"conv: error: the proxy {tinyproxy_auth.url()} (from HTTPS_PROXY) asks for credentials (407). "
                       "Put them in HTTPS_PROXY before the host: USER:PASSWORD@HOST:PORT after http://")
    wrong = fails("ask", "wrong", code=3, env={**base, "https_proxy": tinyproxy_auth.url(f"{USER}:nope@")})
    assert f"the proxy {tinyproxy_auth.url()} (from https_proxy) refused its credentials (407)" in wrong
    refused_http = fails("ask", "plain, none", code=3,
                         env={"http_proxy": tinyproxy_auth.url(), "OPENAI_BASE_URL": fake.url})
    assert "asks for credentials (407)" in refused_http
    assert len(tls_fake.requests) == 1 and len(fake.requests) == 1

    secrets = [PASSWORD, QUOTED, base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()]
    objects = subprocess.run(["git", "-C", str(store_path), "cat-file", "--batch-all-objects", "--batch"],
                             capture_output=True, check=True).stdout  # every object, uncompressed
    assert b"through the tunnel" in objects
    files = b"".join(p.read_bytes() for p in conv_home.rglob("*") if p.is_file())
    for secret in secrets:
        for text in [*outputs, refused, wrong, refused_http]:
            assert secret not in text
        assert secret.encode() not in objects and secret.encode() not in files


# -- (5) untrusted certificates, tls.ca_file, no CA store ---------------------------------------------
def test_an_untrusted_certificate_names_what_to_set_and_tls_ca_file_trusts_it(tls_fake, pki):
    env = {"OPENAI_BASE_URL": https_url(tls_fake)}
    line = fails("ask", "hello", code=3, env=env)
    assert line.startswith(f"conv: error: the certificate of localhost:{tls_fake.port} is not trusted (")
    assert "set SSL_CERT_FILE to that CA's PEM file, or run: conv config set tls.ca_file PATH" in line
    assert tls_fake.requests == []

    assert "no readable file" in fails("config", "set", "tls.ca_file", str(pki / "missing.pem"), code=2)
    assert "full path" in fails("config", "set", "tls.ca_file", "ca.pem", code=2)
    ok("config", "set", "tls.ca_file", str(pki / "ca.pem"))
    answered(ok("ask", "hello", env=env))
    # besides the system's CAs, not instead: with none at all it is the only one, and enough
    answered(ok("ask", "hello", env={**env, "SSL_CERT_FILE": "/nonexistent", "SSL_CERT_DIR": "/nonexistent"}))


def test_a_certificate_for_another_name_says_so(pki):
    with serve_tls(pki, "other") as server:
        line = fails("ask", "hello", code=3,
                     env={"OPENAI_BASE_URL": https_url(server), "SSL_CERT_FILE": str(pki / "ca.pem")})
    assert line.startswith(f"conv: error: the certificate of localhost:{server.port} is not trusted (Hostname mismatch")
    assert line.endswith("It was made for another name: check the host in the base URL")


def test_tls_ca_file_that_is_not_pem_is_one_line(tls_fake, pki, conv_home):
    ok("config", "set", "tls.ca_file", str(pki / "server.csr"))
    line = fails("ask", "hello", code=3, env={"OPENAI_BASE_URL": https_url(tls_fake)})
    assert line.startswith(f"conv: error: cannot read CA certificates from {pki / 'server.csr'}")


def test_without_a_ca_store_certifi_is_used_when_installed(monkeypatch):
    """python.org's macOS builds: OpenSSL's default paths point at nothing.
    Pointing SSL_CERT_FILE and SSL_CERT_DIR at nothing does the same here."""
    from conv.providers import tls

    assert tls.has_store() and tls.context(None).cert_store_stats()["x509_ca"] > 0
    monkeypatch.setenv("SSL_CERT_FILE", "/nonexistent")
    monkeypatch.setenv("SSL_CERT_DIR", "/nonexistent")
    assert not tls.has_store()
    import certifi  # a test dependency, and conv's on macOS

    expected = ssl.create_default_context(cafile=certifi.where()).cert_store_stats()["x509_ca"]
    assert expected > 50 and tls.context(None).cert_store_stats()["x509_ca"] == expected


def test_without_a_ca_store_or_certifi_the_error_says_how_to_get_one(tls_fake):
    """certifi made unimportable in that conv process (the machine has it)."""
    code = ("import sys; sys.modules['certifi'] = None; from conv.__main__ import main; "
            "sys.argv[1:] = ['ask', 'hi']; main()")
    env = conv_env({"OPENAI_BASE_URL": https_url(tls_fake), "SSL_CERT_FILE": "/nonexistent",
                    "SSL_CERT_DIR": "/nonexistent"})
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 3 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "This Python finds no CA certificates: pip install certifi where conv is installed" in done.stderr


# -- (7) IPv6 ------------------------------------------------------------------------------------
def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not ipv6_loopback(), reason="this machine has no IPv6 loopback (::1)")
def test_an_ipv6_literal_connects_with_a_bracketed_host_header(monkeypatch):
    with FakeServer(host="::1") as server:
        assert server.url == f"http://[::1]:{server.port}/v1"
        answered(ok("ask", "hello", env={"OPENAI_BASE_URL": server.url}))
        assert server.headers[-1]["Host"] == f"[::1]:{server.port}"


# -- (8) redirects ------------------------------------------------------------------------------------
def moved(server: FakeServer) -> str:
    return server.url.replace("/v1", "/moved/v1")


@pytest.mark.parametrize("status", [307, 308])
def test_a_307_or_308_is_followed_with_the_same_method_and_body(status, fake):
    fake.set(redirect=(status, ""))
    answered(ok("ask", "hello", env={"OPENAI_BASE_URL": moved(fake), "OPENAI_API_KEY": KEY}))
    assert len(fake.requests) == 2 and fake.requests[0] == fake.requests[1]
    assert [h["Authorization"] for h in fake.headers] == [f"Bearer {KEY}"] * 2  # the same origin keeps it


def test_a_redirect_to_another_host_drops_the_credentials(fake):
    with FakeServer() as elsewhere:
        fake.set(redirect=(307, f"http://localhost:{elsewhere.port}"))
        answered(ok("ask", "hello", env={"OPENAI_BASE_URL": moved(fake), "OPENAI_API_KEY": KEY}))
        assert fake.headers[0]["Authorization"] == f"Bearer {KEY}"
        assert elsewhere.requests == fake.requests and "Authorization" not in elsewhere.headers[0]


def test_an_https_to_http_redirect_is_refused(tls_fake, fake, pki):
    tls_fake.set(redirect=(308, f"http://127.0.0.1:{fake.port}"))
    line = fails("ask", "hello", code=3, env={"OPENAI_BASE_URL": moved(tls_fake), "OPENAI_API_KEY": KEY,
                                              "SSL_CERT_FILE": str(pki / "ca.pem")})
    assert f"redirected to http://127.0.0.1:{fake.port}/v1/chat/completions, which conv does not follow" in line
    assert fake.requests == []


def test_redirects_stop_after_five_hops_and_301_is_not_followed_for_a_post(fake):
    fake.set(redirect=(307, "/moved"))  # to itself, for ever
    line = fails("ask", "hello", code=3, env={"OPENAI_BASE_URL": moved(fake)})
    assert "more than 5 redirects" in line and len(fake.requests) == 6
    fake.set(redirect=(301, ""))
    line = fails("ask", "hello", code=3, env={"OPENAI_BASE_URL": moved(fake)})
    assert "redirected the request (301 to /v1/chat/completions)" in line and len(fake.requests) == 7


# -- the Ollama probe: localhost is proxied unless NO_PROXY lists it, as curl does --------------------
def test_the_ollama_probe_of_127_0_0_1_is_proxied_unless_no_proxy_lists_it(tinyproxy, fake):
    """curl 7.88 sends http://127.0.0.1/ and http://localhost/ through http_proxy
    when NO_PROXY is unset; conv's probe for an Ollama does the same."""
    env = {"OLLAMA_HOST": f"127.0.0.1:{fake.port}", "OPENAI_BASE_URL": "", "http_proxy": tinyproxy.url()}
    assert "ollama:qwen2.5:0.5b" in ok("models", env=env).stdout.decode()
    assert tinyproxy.requests() == [f"GET http://127.0.0.1:{fake.port}/api/tags HTTP/1.1"]
    assert "ollama:qwen2.5:0.5b" in ok("models", env={**env, "NO_PROXY": "localhost,127.0.0.1,::1"}).stdout.decode()
    assert len(tinyproxy.requests()) == 1


# -- start-up: the proxy code loads only when a proxy variable is set ----------------------------------
def test_the_proxy_code_loads_only_when_a_proxy_variable_is_set(fake):
    """The hot path looks five variables up; proxy.py (and ssl, for plain http) stay unloaded."""

    def loaded(env: dict) -> set[str]:
        done = subprocess.run([sys.executable, "-X", "importtime", "-m", "conv", "ask", "hello"], env=conv_env(env),
                              capture_output=True, text=True, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr[-2000:]
        return {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}

    without = loaded({"no_proxy": "*", "NO_PROXY": "*"})  # NO_PROXY alone names no proxy
    assert "conv.providers.http" in without
    assert not {"conv.providers.proxy", "conv.providers.tls", "ssl"} & without
    assert "conv.providers.proxy" in loaded({"http_proxy": "http://127.0.0.1:1", "NO_PROXY": "127.0.0.1"})
