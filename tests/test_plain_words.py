"""What conv prints says what happened in plain words (issue 13, defect 9):
NO_COLOR is honoured by conv show and chat's /show on a terminal, a filter
that matches nothing says so, counts agree with their nouns."""

import sys

import pexpect
import pytest
from conftest import conv_env, ok

pytestmark = pytest.mark.conv_process("what reaches a terminal is what is tested")


def on_a_terminal(*args: str, env: dict | None = None) -> str:
    child = pexpect.spawn(sys.executable, ["-m", "conv", *args], env=conv_env({"TERM": "xterm", **(env or {})}),
                          encoding="utf-8", timeout=30, dimensions=(40, 100))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return child.before


def test_no_color_on_a_terminal_means_no_escape_sequences_in_show(fake):
    fake.set(reply="# Heading\n\n**bold** and `code`\n")
    ok("ask", "explain")
    styled = on_a_terminal("show")
    assert "\x1b[" in styled and "Heading" in styled
    plain = on_a_terminal("show", env={"NO_COLOR": "1"})
    assert "\x1b[" not in plain and "Heading" in plain and "bold" in plain


def test_chat_show_honours_no_color(fake):
    fake.set(reply="**bold** answer")
    child = pexpect.spawn(sys.executable, ["-m", "conv", "chat"], env=conv_env({"TERM": "xterm", "NO_COLOR": "1"}),
                          encoding="utf-8", timeout=30, dimensions=(40, 100))
    child.expect("conv> ")
    child.sendline("a question")
    child.expect(r"conv \S+> ")
    child.sendline("/show")
    child.expect(r"conv \S+> ")
    assert "bold answer" in child.before and "\x1b[" not in child.before.split("/show", 1)[1]
    child.sendeof()
    child.expect(pexpect.EOF)


def test_filters_that_match_nothing_and_counts(fake):
    ok("ask", "one question")
    assert ok("list", "--tag", "nothing", "--since", "7d").stderr.decode() == \
        "conv: no conversation matches --tag nothing --since 7d\n"
    assert ok("reindex").stderr.decode() == "conv: indexed 1 conversation\n"
