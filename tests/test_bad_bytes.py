"""Bytes that are not UTF-8, in any argument or in an environment variable
conv reads as a setting: one line naming which, exit 2, nothing stored, no
request. Real processes with bytes argv (Python decodes argv with
surrogateescape, which is where the bad bytes hide)."""

import json
import os
import subprocess
import sys

import pytest
from conftest import conv_env, git, ok

# invalid UTF-8: a lone continuation byte, truncated sequences, overlong forms,
# surrogates encoded in UTF-8, bytes that never occur, Latin-1
CORPUS = {
    "lone continuation": b"\x80",
    "continuation in text": b"caf\xa9 au lait",
    "truncated 2 of 3": b"price \xe2\x82",
    "truncated 3 of 4": b"\xf0\x9f\x98 smile",
    "overlong slash": b"\xc0\xaf",
    "overlong 3 bytes": b"\xe0\x80\xaf",
    "high surrogate": b"\xed\xa0\x80",
    "low surrogate": b"x\xed\xbf\xbfy",
    "0xFF": b"\xff",
    "latin-1": b"caf\xe9",
}
SHOWN = {  # how the line renders each: the bad bytes as \xNN
    "lone continuation": r"\x80", "continuation in text": r"caf\xa9 au lait", "truncated 2 of 3": r"price \xe2\x82",
    "truncated 3 of 4": r"\xf0\x9f\x98 smile", "overlong slash": r"\xc0\xaf", "overlong 3 bytes": r"\xe0\x80\xaf",
    "high surrogate": r"\xed\xa0\x80", "low surrogate": r"x\xed\xbf\xbfy", "0xFF": r"\xff", "latin-1": r"caf\xe9",
}

# each argument position conv takes text in: (argv with BAD where the bytes go)
POSITIONS = {
    "question": ["ask", "BAD"],
    "follow-up": ["ask", "-c", "BAD"],
    "-s": ["ask", "-s", "BAD", "question"],
    "-m": ["ask", "-m", "BAD", "question"],
    "--cid": ["ask", "--cid", "BAD", "question"],
    "--model=": ["ask", "--model=BAD", "question"],
    "retry --hint": ["retry", "CONV", "--hint", "BAD"],
    "title": ["title", "CONV", "BAD"],
    "tag": ["tag", "CONV", "+BAD"],
    "summary": ["summary", "CONV", "BAD"],
    "search": ["search", "BAD"],
    "fork --title": ["fork", "CONV", "--title", "BAD"],
    "remote url": ["remote", "add", "origin", "https://example.invalid/BAD.git"],
    "import path": ["import", "--from", "llm", "/tmp/BAD.db"],
    "config value": ["config", "set", "model", "BAD"],
    "show ref": ["show", "BAD"],
}


def objects(store) -> int:
    return len(git(store, "cat-file", "--batch-all-objects", "--batch-check").splitlines())


def run(argv: list[bytes], env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "conv", *argv], capture_output=True, stdin=subprocess.DEVNULL,
                          env=conv_env(env), timeout=60)


@pytest.fixture
def conversation(fake, store_path):
    """A conversation to name in the arguments (made in-process: only the bad arguments need processes)."""
    return json.loads(ok("ask", "--json", "a kept conversation").stdout)["conversation"]


@pytest.mark.parametrize("where", POSITIONS)
def test_an_argument_that_is_not_utf8_is_one_line_and_stores_nothing(fake, store_path, conversation, where):
    head, count, sent = git(store_path, "rev-parse", "main"), objects(store_path), len(fake.requests)
    config = store_path.parent / "config" / "config.yaml"
    for name, bad in CORPUS.items():
        argv = [a.encode().replace(b"CONV", conversation.encode()).replace(b"BAD", bad) for a in POSITIONS[where]]
        position = next(n for n, a in enumerate(argv, 1) if bad in a)
        done = run(argv)
        err = done.stderr.decode("utf-8")  # the line itself is UTF-8, always
        assert done.returncode == 2, (name, err)
        assert "Traceback" not in err and done.stdout == b"", (name, err)
        assert (err.count("\n") == 1
                and err.startswith(f"conv: error: argument {position} is not UTF-8 text: ")), (name, err)
        shown = POSITIONS[where][position - 1].replace("CONV", conversation).replace("BAD", SHOWN[name])
        assert f"text: '{shown}'. Give it as UTF-8" in err, (name, err)
    # nothing stored, nothing sent, nothing configured (objects are only ever added: one look at the end suffices)
    assert git(store_path, "rev-parse", "main") == head and objects(store_path) == count
    assert len(fake.requests) == sent and not config.exists() and git(store_path, "remote").strip() == ""
    assert git(store_path, "fsck", "--strict", "--no-dangling").strip() == ""  # git() fails the test on a non-zero exit


def test_control_characters_and_long_arguments_are_shown_harmlessly(fake):
    done = run([b"ask", b"a" * 100 + b"\x1b]0;owned\x07\x9b2J\xff" + b"z" * 100])
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1
    assert not any(c in err for c in "\x1b\x07\x9b\u009b"), err
    assert "'" + "a" * 14 + r"\x1b]0;owned\x07\x9b2J\xff" + "z" * 38 + "'" in err  # around the first bad byte
    assert err.startswith("conv: error: argument 2 is not UTF-8 text: …'") and "'…. Give it as UTF-8" in err


@pytest.mark.parametrize("name", ["CONV_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "CONV_HOME"])
def test_a_setting_in_the_environment_that_is_not_utf8_is_named_never_shown(fake, store_path, conversation, name):
    head, count, sent = git(store_path, "rev-parse", "main"), objects(store_path), len(fake.requests)
    value = {"CONV_HOME": os.fsencode(store_path.parent) + b"/\xff"}.get(name, b"sk-SECRETVALUE\xe9")
    done = run([b"ask", b"--new", b"what is rebase?"], env={name: value})
    err = done.stderr.decode()
    assert done.returncode == 2 and "Traceback" not in err and err.count("\n") == 1, err
    offset = value.index(b"\xff" if name == "CONV_HOME" else b"\xe9")
    byte = "byte 0xff" if name == "CONV_HOME" else "byte 0xe9"
    assert err.startswith(f"conv: error: the environment variable {name} is not UTF-8 text ({byte} at offset {offset})")
    assert f"unset {name}" in err and "SECRET" not in err
    assert git(store_path, "rev-parse", "main") == head and objects(store_path) == count and len(fake.requests) == sent


def test_a_last_command_that_is_not_utf8_is_kept_readable(fake, store_path):
    """The shell plugin's last command line is a record, not a setting: a
    Latin-1 file name in it must not stop the ask."""
    env = {"CONV_LAST_COMMAND": b"cat caf\xe9.txt", "CONV_LAST_STATUS": b"1"}
    done = run([b"ask", b"--json", b"why did it fail?"], env=env)
    assert done.returncode == 0, done.stderr.decode()
    sent = fake.requests[-1]["messages"][-1]["content"]
    assert sent.startswith("why did it fail?") and r"`cat caf\xe9.txt`" in sent and "status 1" in sent
    conv_id = json.loads(done.stdout)["conversation"]
    assert r"cat caf\xe9.txt" in git(store_path, "log", "-p", "--format=", "main", "--", f"*{conv_id}*")


def test_a_chat_line_that_is_not_utf8_is_refused_and_the_chat_goes_on(fake, store_path):
    fake.set(reply="ECHO")
    done = subprocess.run([sys.executable, "-m", "conv", "chat"], input=b"caf\xe9 first\nsecond\n", capture_output=True,
                          env=conv_env(), timeout=60)
    err = done.stderr.decode()
    assert done.returncode == 0 and "Traceback" not in err, err
    assert r"conv: error: that line is not UTF-8 text: 'caf\xe9 first'. Type it again in UTF-8; nothing was done" in err
    assert [r["messages"][-1]["content"] for r in fake.requests] == ["second"]
    assert done.stdout.decode().strip() == "second"
    assert "first" not in git(store_path, "log", "-p", "main")


@pytest.mark.parametrize("stream", [True, False])
def test_half_a_character_from_the_server_is_stored_as_a_replacement_never_a_traceback(fake, store_path, stream):
    """Found by a hostile pass: an answer whose JSON spelled a lone surrogate ("\\ud83d") ended conv ask in a
    UnicodeEncodeError, the question stored alone."""
    fake.set(reply="half an emoji \ud83d here")
    said = ok("ask", *([] if stream else ["--no-stream"]), "say something odd")
    assert "half an emoji \N{REPLACEMENT CHARACTER} here" in said.stdout.decode()
    (conv,) = json.loads(ok("list", "--json").stdout)
    turns = json.loads(ok("show", conv["id"], "--json").stdout)["turns"]
    assert turns[1]["content"] == "half an emoji \N{REPLACEMENT CHARACTER} here"
    git(store_path, "fsck", "--strict")
