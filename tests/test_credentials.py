"""Credentials are never printed and never committed by conv itself (issue 11,
section 2): a password in OPENAI_BASE_URL, API keys in the environment and in
config, a token in a header a command prints, and remote URLs carrying tokens
in every userinfo form, through every command that prints or stores. Checked
on stdout and stderr, and over every object of the store with the real git CLI."""

import base64
import json
import socket
import stat
import subprocess

import pytest
from conftest import git, run_conv
from fakeserver import FakeServer
from hypothesis import given, settings
from hypothesis import strategies as st

PASSWORD = "S3cr3tPassw0rd"  # in OPENAI_BASE_URL
ENV_KEY = "sk-envKeyAbCdEf0123456789xyz"  # OPENAI_API_KEY
OTHER_ENV_TOKEN = "ghs_EnvT0kenNotUsedByConv0000"  # GITHUB_TOKEN: a *_TOKEN conv never uses
CONFIG_KEY = "sk-configKeyQrStUv9876543210"  # api_key in config.yaml
CONFIG_PASSWORD = "C0nfigPassw0rdXyz"  # base_url in config.yaml
OLLAMA_PASSWORD = "0llamaPassw0rd77"  # OLLAMA_HOST
GH_TOKEN = "ghp_R3m0teT0kenAAAAAAAAAAAAAAAAAAAAAAAA"  # https://TOKEN:x-oauth-basic@host
USER_TOKEN = "glpat-Us3rOnlyT0ken0000"  # https://TOKEN@host
AT_PASSWORD = "p@ssW0rd@With@Ats"  # https://user:p@ss…@host
HEADER_SECRET = "hdrB3arerValue424242"  # in no variable: only its header gives it away
SECRETS = [PASSWORD, ENV_KEY, OTHER_ENV_TOKEN, CONFIG_KEY, CONFIG_PASSWORD, OLLAMA_PASSWORD, GH_TOKEN, USER_TOKEN,
           AT_PASSWORD, "ssW0rd@With", "With@Ats", HEADER_SECRET]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def leaks(data: bytes) -> list[str]:
    return [s for s in SECRETS if s.encode() in data]


@pytest.fixture
def secrets_everywhere(monkeypatch, conv_home):
    (conv_home / "config").mkdir(parents=True)
    (conv_home / "config" / "config.yaml").write_text(
        f"api_key: {CONFIG_KEY}\nbase_url: 'http://cfg:{CONFIG_PASSWORD}@127.0.0.1:1/v1'\n")
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    monkeypatch.setenv("GITHUB_TOKEN", OTHER_ENV_TOKEN)
    monkeypatch.setenv("OLLAMA_HOST", f"http://ol:{OLLAMA_PASSWORD}@127.0.0.1:{closed_port()}")


def test_no_credential_reaches_any_output_or_the_store(secrets_everywhere, tmp_path, store_path, monkeypatch):
    seen: list[tuple[tuple, bytes]] = []

    def conv(*args, code=None, env=None):
        done = run_conv(*args, env=env)
        output = done.stdout + done.stderr
        assert b"Traceback" not in output, (args, output.decode())
        if code is not None:
            assert done.returncode == code, (args, done.returncode, output.decode())
        seen.append((args, output))
        return done

    closed = closed_port()
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://user:{PASSWORD}@127.0.0.1:{closed}/v1")
    refused = conv("ask", "first question", code=3).stderr.decode()
    assert f"http://***@127.0.0.1:{closed}/v1" in refused  # which server is still said
    conv("ask", "-c", "--json", "refused again", code=3)

    with FakeServer(mode="500", retry_after="0") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://user:{PASSWORD}@127.0.0.1:{server.port}/v1")
        failed = conv("ask", "-c", "the server fails", code=3).stderr.decode()
        assert "(500)" in failed, failed
        conv("ask", "-c", "--no-stream", "it fails whole", code=3)
        conv("ask", "-c", "--json", "it fails as JSON", code=3)
        assert server.headers[0]["Authorization"] == f"Bearer {ENV_KEY}"  # the key wins over the URL's user
        server.set(mode="ok")
        conv("ask", "-c", "--json", "now it answers", code=0)
        conv("retry", "--hint", f"do not print {ENV_KEY}", code=0)
        conv("ask", "-c", "--dry-run", "what would go", code=0)
        conv("ask", "-c", "--dry-run", "--json", "what would go", code=0)
        conv("models", code=0)
        conv("models", "--json", code=0)

    script = tmp_path / "failing-model"
    script.write_text(f"#!/bin/sh\necho 'curl: (22) sent Authorization: Bearer {HEADER_SECRET}' >&2\nexit 2\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    conv("ask", "-c", "-m", f"cmd:{script}", "a command that fails", code=3)

    port = closed_port()
    remotes = {"gh": f"https://{GH_TOKEN}:x-oauth-basic@127.0.0.1:{port}/x.git",
               "lab": f"https://{USER_TOKEN}@127.0.0.1:{port}/y.git",
               "at": f"https://user:{AT_PASSWORD}@127.0.0.1:{port}/z.git"}
    for name, url in remotes.items():
        conv("remote", "add", name, url, code=0)
    listed = conv("remote", "list", code=0).stdout.decode()
    assert listed.count(f"https://***@127.0.0.1:{port}/") == 3, listed
    assert sorted(json.loads(conv("remote", "list", "--json", code=0).stdout), key=lambda r: r["name"]) == [
        {"name": "at", "url": f"https://***@127.0.0.1:{port}/z.git"},
        {"name": "gh", "url": f"https://***@127.0.0.1:{port}/x.git"},
        {"name": "lab", "url": f"https://***@127.0.0.1:{port}/y.git"}]
    conv("remote", "add", "gh", remotes["gh"], code=2)  # exists already
    conv("remote", "add", "bad", remotes["lab"] + " and more", code=2)  # not a URL
    conv("remote", "add", "bad name", remotes["at"], code=2)
    for name in remotes:
        conv("sync", name, code=4)
        conv("sync", name, "--json", code=4)
        conv("push", name, code=4)
        conv("pull", name, code=4)

    for args in (["show"], ["show", "--json"], ["show", "--raw"], ["log"], ["log", "--json"], ["export"],
                 ["export", "-f", "json"], ["export", "-f", "openai"], ["list"], ["list", "--json"],
                 ["search", "fails"], ["search", "fails", "--json"], ["config", "get"], ["config", "get", "api_key"],
                 ["config", "get", "base_url"]):
        conv(*args, code=0)

    assert len(seen) == 47
    leaked = [(args, leaks(output)) for args, output in seen if leaks(output)]
    assert not leaked, leaked
    # what the failures stored: each reason, masked, still saying what went wrong
    errors = git(store_path, "grep", "-h", "^error:", "main", "--").splitlines()
    assert len(errors) == 6, errors
    assert sum("cannot reach http://***@127.0.0.1" in e for e in errors) == 2, errors
    assert sum("Authorization: ***" in e for e in errors) == 1, errors
    assert sum("(500)" in e for e in errors) == 3, errors
    hints = git(store_path, "grep", "-h", "^hint:", "main", "--").splitlines()
    assert len(hints) == 1 and "do not print ***" in hints[0], hints

    objects = git_bytes(store_path, "cat-file", "--batch-all-objects", "--batch")
    messages = git_bytes(store_path, "log", "--format=%B", "--all")
    assert b"the server fails" in objects and b"answer failed" in messages  # the checks see the store
    assert not leaks(objects), leaks(objects)
    assert not leaks(messages), leaks(messages)


def git_bytes(store, *args) -> bytes:
    return subprocess.run(["git", "-C", str(store), *args], capture_output=True, check=True).stdout


def test_a_base_url_with_userinfo_is_sent_as_basic_auth(fake, monkeypatch, store_path):
    """As curl does: the URL's user and password (percent-decoded) as HTTP Basic
    auth, the URL itself without them; never shown."""
    monkeypatch.setenv("OPENAI_BASE_URL", fake.url.replace("http://", f"http://user:{PASSWORD}%40x@"))
    done = run_conv("ask", "hello")
    assert done.returncode == 0, done.stderr.decode()
    sent = fake.headers[-1]["Authorization"]
    assert sent == "Basic " + base64.b64encode(f"user:{PASSWORD}@x".encode()).decode()
    assert fake.headers[-1]["Host"] == f"127.0.0.1:{fake.port}"
    assert not leaks(done.stdout + done.stderr)


# -- the rules, on the function itself -----------------------------------------------------

@pytest.mark.parametrize("text, shown", [
    ("https://ghp_TOKEN:x-oauth-basic@github.com/me/x.git", "https://***@github.com/me/x.git"),
    ("https://glpat-TOKEN@gitlab.com/me/x.git", "https://***@gitlab.com/me/x.git"),
    ("http://user:p@ss@w@host:8080/v1", "http://***@host:8080/v1"),  # the userinfo ends at the last @
    ("fatal: unable to access 'https://u:pw@h/x.git/': 403", "fatal: unable to access 'https://***@h/x.git/': 403"),
    ("ssh://user:pw@host/x.git", "ssh://***@host/x.git"),
    ("ssh://git@github.com/me/x.git", "ssh://***@github.com/me/x.git"),  # a user name alone may be a token
    ("git@github.com:me/x.git", "git@github.com:me/x.git"),  # scp-style: a login, no URL
    ("write to a@b.com or see https://host/x?from=a@b.com", "write to a@b.com or see https://host/x?from=a@b.com"),
    ("Authorization: Bearer sk-abc123", "Authorization: ***"),
    ("{'x-api-key': 'sk-ant-abc', 'n': 1}", "{'x-api-key': '***', 'n': 1}"),
    ("Proxy-Authorization: Basic dXNlcjpw\nnext line", "Proxy-Authorization: ***\nnext line"),
    ("the Authorization header is missing", "the Authorization header is missing"),
    (f"key {ENV_KEY} and {CONFIG_KEY}.", "key *** and ***."),
    ("MY_FLAG_TOKEN=yes stays: yes", "MY_FLAG_TOKEN=yes stays: yes"),  # under 8 characters: not a key
])
def test_what_counts_as_a_secret(text, shown, monkeypatch, conv_home):
    (conv_home / "config").mkdir(parents=True)
    (conv_home / "config" / "config.yaml").write_text(f"agents:\n  coder:\n    api_key: \"{CONFIG_KEY}\"  # mine\n")
    monkeypatch.setenv("SOME_SERVICE_API_KEY", ENV_KEY)
    monkeypatch.setenv("MY_FLAG_TOKEN", "yes")
    from conv.home.secrets import redact

    assert redact(text) == shown


FRAGMENTS = ["word ", "\n", "https://", "ssh://", "git@h/x ", "user:p@ss@host/v1 ", "TOKEN@host ", ": ",
             "\nAuthorization: Bearer abc", "x-api-key=", "\x1b]0;title\x07", "\x1b[2J", "\x9b31m", "\u202e", "\u2066",
             ENV_KEY, ENV_KEY[:9], "http://host/", "@", "/", "s", "sh", ":", "//", "Au", "thorization", "x-api", "-key"]


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(st.sampled_from(FRAGMENTS), max_size=30), cuts=st.lists(st.integers(1, 12), max_size=60))
def test_a_streamed_answer_is_cleaned_as_if_it_came_whole(pieces, cuts):
    """However the model's answer is cut into pieces, the printer shows exactly
    what ``clean`` makes of the whole: no sequence, no secret split across pieces gets through."""
    import os

    from conv.terminal.sanitize import StreamCleaner, clean

    os.environ["SOME_SERVICE_API_KEY"] = ENV_KEY  # hypothesis runs many examples in one test: no monkeypatch
    try:
        text, cleaner, shown, at = "".join(pieces), StreamCleaner(), "", 0
        for size in cuts:
            shown += cleaner.feed(text[at:at + size])
            at += size
        shown += cleaner.feed(text[at:]) + cleaner.flush()
        assert shown == clean(text)
        assert ENV_KEY not in shown and "abc" not in shown.replace("git@h", "")
    finally:
        del os.environ["SOME_SERVICE_API_KEY"]
