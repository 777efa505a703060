"""conftest's run_conv runs conv inside the test process; a real ``python -m
conv`` process must answer the same, byte for byte: exit status, stdout and
stderr, with and without stdin, for what conv writes itself and what the
processes it starts write (conv git), for usage errors, conv's own errors and
an unreadable config."""

import subprocess

import pytest
from conftest import run_conv, run_conv_process

COMMANDS = [
    (["--help"], None),
    (["list", "--json"], None),
    (["config", "get"], None),
    (["show", "qqqqqq"], None),
    (["list", "--bogus"], None),
    (["ask", "--dry-run", "--json", "-s", "Be brief.", "-c", "review this"], "def f():\n    return 1\n"),
    (["ask", "--dry-run", "hello"], b"caf\xe9"),
    (["models", "--json"], None),
    (["export", "-f", "openai"], None),
    (["git", "log", "--format=%s"], None),
]


def same(args, input=None):
    inside = run_conv(*args, input=input)
    outside = run_conv_process(*args, input=input)
    assert (inside.returncode, inside.stdout, inside.stderr) == \
        (outside.returncode, outside.stdout, outside.stderr), args
    return inside


def test_in_process_runs_answer_as_a_process_does(fake, conv_home):
    fake.set(reply="ECHO")
    assert run_conv_process("ask", "first question").returncode == 0
    assert run_conv_process("ask", "-c", "a follow-up", input="with\nstdin\n").returncode == 0
    for args, input in COMMANDS:
        same(args, input)
    assert same(["git", "log", "--format=%s"]).stdout.endswith(b"conv: create store\n")
    (conv_home / "config").mkdir(exist_ok=True)
    (conv_home / "config" / "config.yaml").write_text("model: [unclosed\n")
    assert same(["ask", "--dry-run", "hello"]).returncode != 0  # a command that reads the broken config


def test_a_timeout_raises_as_subprocess_run_does(fake):
    fake.set(mode="hang")
    with pytest.raises(subprocess.TimeoutExpired):
        run_conv("ask", "anyone there?", timeout=1)
    fake.set(mode="ok")
    assert run_conv("ask", "and now?").stdout == b"Hello from fake.\n"
