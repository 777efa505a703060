"""Each a wrong word a user met (issue 34, part 6): a file -f cannot send is
one line, not a traceback; sizes, exit codes and hints say what is true;
usage errors point at the command's own help; a conversation names the
model its next follow-up goes to."""

import json
import os
import socket
import struct
import zlib

import pytest
from conftest import fails, ok, run_conv


@pytest.mark.parametrize("kind", ["link loop", "socket", "proc mem", "long name", "fifo"])
def test_a_file_that_cannot_be_sent_is_one_line(kind, fake, tmp_path, store_path, monkeypatch):
    if kind == "link loop":
        (tmp_path / "a").symlink_to(tmp_path / "b")
        (tmp_path / "b").symlink_to(tmp_path / "a")
        path = tmp_path / "a"
    elif kind == "socket":
        path = tmp_path / "sock"
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
    elif kind == "proc mem":
        path = "/proc/self/mem"
    elif kind == "long name":
        path = tmp_path / ("x" * 300)
    else:
        path = tmp_path / "fifo"
        os.mkfifo(path)
        writer = os.open(path, os.O_RDWR | os.O_NONBLOCK)  # a writer that never ends it: waited on, then refused
        from conv.services.ask import attachments

        monkeypatch.setattr(attachments, "PIPE_SECONDS", 1)
    said = fails("ask", "-f", str(path), "what is this?")
    assert str(path)[:40] in said
    assert fake.requests == [] and not store_path.exists()  # nothing sent, nothing stored
    if kind == "fifo":
        os.close(writer)


def test_a_file_over_the_limit_is_said_with_its_size(fake, tmp_path):
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 6_000_000)
    assert "big.txt is 6,000,000 bytes, more than files.max_bytes (5,000,000)" in fails("ask", "-f", str(big), "q")


def test_a_file_that_is_not_utf8_is_said_so_not_called_binary(fake, tmp_path):
    latin = tmp_path / "latin.txt"
    latin.write_bytes("café au lait\n".encode("latin-1"))
    said = fails("ask", "-f", str(latin), "q")
    assert "latin.txt is not UTF-8 text" in said and "binary" not in said and "iconv" in said


def png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) + chunk(
        b"IDAT", raw) + chunk(b"IEND", b"")


def test_binary_on_stdin_is_bad_input_and_an_image_is_pointed_at_f_dash(fake):
    said = fails("ask", "what is this?", input=os.urandom(64) + b"\x00", code=1)  # README: 1 is bad input
    assert "stdin holds binary data" in said
    said = fails("ask", "what is this?", input=png(), code=1)
    assert 'conv ask -f - "…" < FILE' in said
    fails("ask", "what is this?", input=b"caf\xe9", code=1)


def test_a_bare_endpoint_name_asks_for_its_model(fake):
    ok("config", "set", "endpoints.corp.base_url", fake.url)
    said = fails("ask", "-m", "corp", "hello", code=2)
    assert "'corp' is an endpoint of yours" in said and "-m corp:MODEL" in said and "OPENAI_API_KEY" not in said
    assert fake.requests == []
    ok("config", "set", "endpoints.corp.models", "m1, m2")
    ok("ask", "-m", "corp", "hello")
    assert fake.requests[-1]["model"] == "m1"


def test_usage_errors_point_at_the_commands_own_help():
    assert fails("lsit", code=2).endswith("Did you mean 'list'? Try 'conv --help'")
    assert fails("ask", "-f", code=2).endswith("Try 'conv ask --help'")
    assert fails("export", "-o", code=2).endswith("Try 'conv export --help'")


def test_hooks_list_says_each_hook_in_a_whole_sentence():
    listed = ok("hooks", "list").stdout.decode() + ok("hooks", "list").stderr.decode()
    assert "at most once a minute (a later commit carries what a skipped one left)." in listed
    assert "refuse a commit whose files hold an API key or a private key." in listed


def test_a_conversation_names_the_model_its_next_follow_up_goes_to(fake, tmp_path):
    conv = json.loads(ok("ask", "-m", "gpt-4o-mini", "--json", "first").stdout)["conversation"]
    ok("ask", "-c", "-m", "gpt-4o", "again")
    assert json.loads(ok("list", "--json").stdout)[0]["model"] == "gpt-4o"
    assert "· gpt-4o ·" in ok("show", conv).stdout.decode().split("\n")[2]
    dry = json.loads(ok("ask", "-c", "--dry-run", "--json", "x").stdout)
    assert dry["model"] == "gpt-4o"
    ok("share", conv, "-o", str(tmp_path / "p.html"))
    assert "gpt-4o-mini" not in (tmp_path / "p.html").read_text().split("<pre")[1].split("1. user")[0]


def test_one_thing_is_never_said_as_many(fake):
    conv = json.loads(ok("ask", "--json", "one question").stdout)["conversation"]
    fork = json.loads(ok("fork", conv, "--at", "1", "--json").stdout)["id"]
    assert " · 1 turn · " in ok("show", fork).stdout.decode()
    done = run_conv("export", "--all", "--format", "json", "-o", "/dev/null")
    assert "2 conversations" in done.stderr.decode()
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")  # written into, never replaced


def test_the_share_page_colours_no_digit_of_a_model_name(tmp_path):
    conv = json.loads(ok("ask", "-m", "cmd:echo claude-sonnet-4-5", "--json", "hi").stdout)["conversation"]
    ok("share", conv, "-o", str(tmp_path / "p.html"))
    text = (tmp_path / "p.html").read_text()
    assert "claude-sonnet-4-5" in text and "#00ff00" not in text
