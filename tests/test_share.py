"""conv share: one self-contained HTML page, opened in a real headless
Chromium (Debian's): it renders, it asks for nothing over the network, no
script, tag or escape sequence from an answer becomes live, and secrets
(known ones, and what only looks like a key) are masked and named."""

import json
import re
import socket
import subprocess
import threading

import pytest
from conftest import ok

KNOWN = "known-secret-value-12345"  # an *_API_KEY's value: conv knows it is a secret
LOOKS = "ghp_" + "a1B2c3D4" * 5  # shaped like a GitHub token
ELSEWHERE = "page-fetch.invalid"  # a host an answer names: would Chromium fetch it, the proxy would hear of it


class Listener:
    """A TCP port on 127.0.0.1 that keeps the first line of each request made to it (and answers nothing)."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port, self.requests = self.sock.getsockname()[1], []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.settimeout(2)
            try:
                self.requests.append(conn.recv(300).split(b"\r\n")[0].decode("latin-1"))
            except OSError:
                self.requests.append("(nothing said)")
            conn.close()


@pytest.fixture
def listeners():
    pair = Listener(), Listener()
    yield pair
    for listener in pair:
        listener.sock.close()


def chromium_dom(page, profile, proxy_port) -> str:
    done = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", f"--user-data-dir={profile}",
         "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", f"--proxy-server=http://127.0.0.1:{proxy_port}",
         f"file://{page}"], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_page_renders_fetches_nothing_runs_nothing_and_masks_secrets(fake, tmp_path, listeners, monkeypatch):
    here, proxy = listeners
    monkeypatch.setenv("MY_API_KEY", KNOWN)
    fake.set(reply=(
        "Here:\n\n```python\ndef rebase():\n    return 'done'\n```\n\n"
        "<script>document.body.setAttribute('data-pwned','script')</script>\n\n"
        f"<img src=\"http://127.0.0.1:{here.port}/tag.png\" "
        "onerror=\"document.body.setAttribute('data-pwned','img')\">\n\n"
        f"![chart](http://127.0.0.1:{here.port}/md.png) and [a link](javascript:alert(1))\n\n"
        f"<img src=\"http://{ELSEWHERE}/far.png\"> ![far](http://{ELSEWHERE}/far2.png)\n\n"
        "\x1b]0;evil title\x07\x1b[31mred\x1b[0m text &#x202E;reversed"))
    conv = json.loads(ok("ask", "--json", f"{LOOKS} is a token; rebase? my key {KNOWN}").stdout)["conversation"]
    fork = json.loads(ok("fork", conv, "--at", "1", "--json", "--title", "try merge").stdout)["short"]
    page = tmp_path / "page.html"
    done = ok("share", conv, "--force", "-o", str(page))
    assert done.stdout.decode().strip() == str(page)
    said = done.stderr.decode()
    assert "masked: turn 1 held what looks like a GitHub token (ghp_a1…)" in said
    assert "masked: the title held what looks like a GitHub token" in said

    text = page.read_text()
    assert KNOWN not in text and LOOKS not in text and "\x1b" not in text and "\u202e" not in text
    assert not re.search(r"\b(?:src|href)\s*=|<script|<link|@import|url\(", text, re.I)  # nothing to fetch or run
    dom = chromium_dom(page, tmp_path / "profile", proxy.port)
    assert "data-pwned" not in dom and "<script" not in dom and "<img" not in dom
    assert "def</span>" in dom and "rebase" in dom and "Masked before sharing" in dom  # rendered, code highlighted
    assert f"fork: {fork}  try merge" in dom
    assert here.requests == []  # the answer's loopback addresses: never asked
    assert not [line for line in proxy.requests if ELSEWHERE in line]  # nor its others (Chromium's own requests aside)


def test_an_imported_tool_call_keeps_its_label_on_a_terminal_and_on_the_page(tmp_path):
    """Which tool ran what: the label of an imported agent's fenced blocks is
    shown above them, as it reads when piped."""
    from test_import_hostile import CLAUDE, write
    from test_terminal_hygiene import on_a_terminal

    ok("import", "--from", "claude-code", str(write("claude-code", tmp_path / "cc", CLAUDE)))
    (conv,) = json.loads(ok("list", "--json").stdout)
    shown = re.sub(r"\x1b\[[0-9;]*m", "", on_a_terminal("show", conv["id"]))
    assert "tool call: Read" in shown and "tool result: Read" in shown
    page = tmp_path / "page.html"
    ok("share", conv["id"], "-o", str(page))
    text = re.sub(r"<[^>]+>", "", page.read_text())
    assert "tool call: Read" in text and "tool result: Read" in text
    assert "#00ff00" not in page.read_text()  # no rule drawn for a dark terminal on the white page


def test_the_page_holds_the_summary_as_conv_show_does(fake, tmp_path):
    conv = json.loads(ok("ask", "--json", "rebase or merge?").stdout)["conversation"]
    ok("summary", conv, "Chose rebase -i over merge.")
    assert "Chose rebase -i over merge." in ok("show", conv).stdout.decode()
    page = tmp_path / "p.html"
    ok("share", conv, "-o", str(page))
    assert "Chose rebase -i over merge." in page.read_text()
