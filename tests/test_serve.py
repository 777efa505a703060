"""conv serve in Debian's headless Chromium (tests/browser.py drives it over
the DevTools protocol): the list and its filters, a search typed a key at a
time, a conversation rendered, its versions, forks and a diff, the stats as
charts, a capture appearing live; a hostile store where no script runs and
nothing is fetched from elsewhere; and the server's own refusals (another
Host, another Origin, no token, anything but GET, a port taken), Ctrl-C.
With SERVE_SCREENSHOTS=DIR the main pages are saved there (docs/ holds them)."""

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from browser import Browser
from conftest import conv_env, fails, ok
from test_share import Listener

sys.path.insert(0, str(Path(__file__).parent / "sources"))
from samples import SAMPLES  # noqa: E402

HOSTILE = "<script>document.body.dataset.pwned='title'</script><img src=x onerror=\"document.body.dataset.pwned=1\">"


class Served:
    """conv serve as a process, its address read from its first line."""

    def __init__(self, *args: str):
        self.process = subprocess.Popen([sys.executable, "-m", "conv", "serve", "--port", "0", *args],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=conv_env(),
                                        stdin=subprocess.DEVNULL, text=True)
        self.url = self.process.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), self.process.stderr.read()
        self.base, self.token = self.url.split("/?token=")
        self.port = int(self.base.split(":")[2].split("/")[0])
        self.prefix = self.base.split(str(self.port), 1)[1]  # every page is under the server's own path

    def get(self, path: str, headers: dict | None = None, method: str = "GET", cookie: bool = True):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        sent = {"Host": f"127.0.0.1:{self.port}", **({"Cookie": f"conv_token={self.token}"} if cookie else {}),
                **(headers or {})}
        connection.request(method, self.prefix + path, headers=sent)
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read().decode()

    def stop(self) -> int:
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(10)


@pytest.fixture
def store(fake, tmp_path):
    """Conversations of several sources, a fork, a title to filter on."""
    for name in ("claude-code", "codex", "gemini"):
        ok("import", "--from", name, str(SAMPLES[name].write(tmp_path / name, other=False)))
    fake.set(reply="Here:\n\n```python\ndef rebase_onto(branch):\n    return branch\n```\n\nDone.")
    asked = json.loads(ok("ask", "--json", "how do I rebase onto main?").stdout)["conversation"]
    ok("ask", "-c", asked, "and back?")
    fork = json.loads(ok("fork", asked, "--at", "2", "--json", "--title", "try a merge instead").stdout)["id"]
    return {"asked": asked, "fork": fork}


@pytest.fixture
def browser(tmp_path):
    opened = Browser(tmp_path / "profile")
    yield opened
    opened.close()


def test_every_page_in_a_real_browser_and_what_comes_in_appears_live(store, browser, tmp_path):
    served = Served()
    try:
        page = browser.page()
        page.go(served.url)  # the token once, then the cookie
        assert page.js("location.search") == "" and "how do I rebase onto main?" in page.js("document.body.innerText")
        assert page.js("document.querySelectorAll('table.list tbody tr').length") == 5
        page.go(f"{served.base}/?source=codex")
        assert page.js("[...document.querySelectorAll('table.list tbody tr td:nth-child(2)')]"
                       ".map(td => td.innerText)") == ["codex"]
        page.go(served.base + "/")
        page.type("#q", "rebase")
        page.wait_js("document.querySelectorAll('ol.hits li').length >= 1")
        assert "rebase" in page.js("document.querySelector('ol.hits mark').innerText").lower()
        shots = os.environ.get("SERVE_SCREENSHOTS")
        page.go(f"{served.base}/c/{store['asked']}")
        assert page.js("document.querySelectorAll('article.turn').length") == 4
        assert page.js("!!document.querySelector('.content .highlight .k, .content .highlight .kd')")  # highlighted
        assert "conv ask -c" in page.js("document.querySelector('.go-on').innerText")
        if shots:
            page.screenshot(Path(shots) / "serve-conversation.png")
        claude = next(c["id"] for c in json.loads(ok("list", "--json").stdout) if c["source"] == "claude-code")
        page.go(f"{served.base}/c/{claude}")
        assert page.js("document.querySelectorAll('details.tool').length") >= 2  # tool calls folded
        assert page.js("[...document.querySelectorAll('details.tool')].every(d => !d.open)")
        assert page.js("!!document.querySelector('details.thinking')") and "claude --resume" in page.js(
            "document.querySelector('.go-on').innerText")
        page.go(f"{served.base}/c/{store['asked']}/versions")
        assert page.js("document.querySelectorAll('ol.timeline li').length") >= 2
        assert "try a merge instead" in page.js("document.querySelector('ul.tree').innerText")
        page.go(f"{served.base}/c/{store['asked']}/diff?with={store['fork']}")
        assert page.js("document.querySelectorAll('.diff .pair').length") >= 1
        page.go(f"{served.base}/stats?since=365d")
        assert page.js("document.querySelectorAll('table.chart svg rect').length") >= 3
        if shots:
            page.screenshot(Path(shots) / "serve-stats.png")
        page.go(served.base + "/")
        if shots:
            page.screenshot(Path(shots) / "serve-list.png")
        time.sleep(1)  # the page's feed has told it the head it shows
        started = time.monotonic()
        ok("import", "--from", "qwen", str(SAMPLES["qwen"].write(tmp_path / "qwen", other=False)))
        page.wait_js("document.querySelectorAll('table.list tbody tr').length === 6", timeout=5)
        appeared = time.monotonic() - started
        assert appeared < 3, appeared  # the import's own time, then at most 2 s (the feed looks twice a second)
        assert page.errors() == []
        assert all(url.startswith((served.base, "data:")) for url in page.requests()), page.requests()
    finally:
        assert served.stop() == 130


def test_a_hostile_store_runs_no_script_and_fetches_nothing_from_elsewhere(fake, browser, tmp_path, monkeypatch):
    here = Listener()
    monkeypatch.setenv("MY_API_KEY", "known-secret-value-12345")
    fake.set(reply=(f"{HOSTILE}\n\n<iframe src=\"http://127.0.0.1:{here.port}/frame\"></iframe>"
                    f"![x](http://127.0.0.1:{here.port}/md.png) [a](javascript:document.body.dataset.pwned=2)\n\n"
                    "\x1b]0;evil\x07 the key known-secret-value-12345"))
    conv = json.loads(ok("ask", "--json", "-m", f"openai:{HOSTILE}", "a question").stdout)["conversation"]
    ok("title", conv, HOSTILE)
    ok("tag", conv, "+<b>x</b>")
    served = Served()
    try:
        page = browser.page()
        page.go(served.url)
        for path in ("/", f"/c/{conv}", f"/c/{conv}/versions", "/?q=question", "/stats?since=365d"):
            page.go(served.base + path)
            assert page.js("document.body.dataset.pwned") is None, path
            assert page.js("document.scripts.length") == 1 and page.js("document.querySelectorAll('iframe, img')"
                                                                       ".length") == 0, path
            assert "known-secret-value-12345" not in page.js("document.documentElement.outerHTML"), path
        page.go(served.base + "/")
        page.type("#q", "question")  # the typed search's results, put on the page as text
        page.wait_js("document.querySelectorAll('ol.hits li').length >= 1")
        assert page.js("document.body.dataset.pwned") is None and "<script>" in page.js(
            "document.querySelector('ol.hits a').innerText")
        assert here.requests == []
        assert all(url.startswith((served.base, "data:")) for url in page.requests()), page.requests()
    finally:
        served.stop()
        here.sock.close()


def test_only_its_own_host_origin_and_token_are_answered_and_nothing_changes(store, tmp_path):
    served = Served()
    try:
        status, headers, body = served.get("/")
        assert status == 200 and "script-src 'self'" in headers["Content-Security-Policy"]
        assert "'unsafe-inline'" not in headers["Content-Security-Policy"] and headers["X-Frame-Options"] == "DENY"
        assert served.get("/", {"Host": "attacker.example:80"})[0] == 421  # a DNS rebinding page
        assert served.get("/", {"Host": f"attacker.example:{served.port}"})[0] == 421
        assert served.get("/", {"Origin": "http://attacker.example"})[0] == 403
        assert served.get("/api/search?q=rebase", {"Sec-Fetch-Site": "cross-site"})[0] == 403
        assert served.get("/", cookie=False)[0] == 401
        assert served.get("/?token=wrong", cookie=False)[0] == 403
        status, headers, _ = served.get(f"/c/{store['asked']}?token={served.token}", cookie=False)
        assert status == 303 and "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
        assert headers["Location"] == f"{served.prefix}/c/{store['asked']}"
        assert headers["Set-Cookie"].endswith(f"Path={served.prefix}/")  # a cookie goes to every port: not this
        assert len(served.prefix) > 10 and served.get("/../x")[0] == 404  # path, which no other program knows
        for method in ("TRACE", "BREW", "HEAD"):  # what the standard library would answer itself: this server's
            status, headers, _ = served.get("/", method=method)  # headers too
            assert status in (405, 501) and "script-src 'self'" in headers["Content-Security-Policy"], method
        assert "is neither" in served.get("/stats?since=abc")[2]
        assert "is not before until" in served.get("/?since=2026-12-01&until=2026-11-01")[2]
        before = ok("list", "--json").stdout
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            assert served.get(f"/c/{store['asked']}", method=method)[0] == 405
        assert ok("list", "--json").stdout == before
        assert served.get("/c/..%2f..%2fetc")[0] == 404 and served.get("/static/../server.py")[0] == 404
        assert served.get("/c/zzzzzzzzzz")[0] == 404
        said = fails("serve", "--port", str(served.port), code=1, process=True)
        assert f"port {served.port} on 127.0.0.1 is taken" in said
    finally:
        assert served.stop() == 130
