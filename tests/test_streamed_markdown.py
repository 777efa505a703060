"""Answers rendered as Markdown while they stream (issue 14, part 3), on a
real terminal (tmux reads the screen back; pexpect sees every byte), and
left exactly as they are when piped, with NO_COLOR, --plain or render: plain."""

import sys

import pexpect
import pytest
from conftest import conv_env, ok, run_conv_process
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from shells import Tmux

from conv.terminal.streamed_markdown import StreamedMarkdown

pytestmark = pytest.mark.conv_process("what reaches a terminal is what is tested")

ANSWER = ("# Rebase\n\nIt **replays** commits, see `git rebase -i`.\n\n```python\nprint('hi')\n```\n"
          "- first point\n- second point\nno newline at the end")
KEY = "sk-streamed-secret-0123456789"


@pytest.fixture
def tmux(tmp_path):
    with Tmux(tmp_path) as server:
        yield server


def on_screen(tmux, conv_home, fake, *args: str, env: dict | None = None) -> str:
    """The screen after ``conv ask ARGS`` ran in a bash pane of 100 columns."""
    sh = tmux.shell("bash", {"CONV_HOME": str(conv_home), "OPENAI_BASE_URL": fake.url, **(env or {})})
    sh.wait_prompt(timeout=15)
    sh.run(" ".join([sys.executable, "-m", "conv", "ask", *args]), timeout=30)
    return sh.screen()


def test_a_terminal_shows_the_answer_rendered_as_it_streams(tmux, conv_home, fake):
    fake.set(reply=ANSWER, chunk_delay=0.01)
    screen = on_screen(tmux, conv_home, fake, "explain")
    assert "It replays commits, see git rebase -i." in screen and "**" not in screen and "`git" not in screen
    assert "• first point" in screen and "• second point" in screen
    assert "print('hi')" in screen and "no newline at the end" in screen
    assert "# Rebase" not in screen and "Rebase" in screen


def test_a_table_in_an_answer_is_rendered_once_it_ends(tmux, conv_home, fake):
    """Issue 23: tables printed raw on a terminal (each row rendered alone)."""
    table = ("Compare:\n\n| command | what it does |\n|---|---|\n| git rebase | replays commits |\n"
             "| git merge | joins histories |\n\nThat is all.")
    fake.set(reply=table, chunk_delay=0.01)
    screen = on_screen(tmux, conv_home, fake, "compare")
    assert "|---|" not in screen and "| git rebase |" not in screen
    assert "git rebase" in screen and "replays commits" in screen and "joins histories" in screen
    assert any(c in screen for c in "━─│┃") and "That is all." in screen
    fake.set(reply="| a | b |\n|---|---|\n| 1 | 2 |")  # a table that ends the answer
    screen = on_screen(tmux, conv_home, fake, "again")
    assert "|---|" not in screen and "| 1 | 2 |" not in screen


@pytest.mark.parametrize("how", ["--plain", "NO_COLOR", "render: plain"])
def test_plain_when_asked(tmux, conv_home, fake, how):
    fake.set(reply=ANSWER, chunk_delay=0.01)
    env = {"NO_COLOR": "1"} if how == "NO_COLOR" else {}
    if how == "render: plain":
        ok("config", "set", "render", "plain")
    screen = on_screen(tmux, conv_home, fake, *(["--plain"] if how == "--plain" else []), "explain", env=env)
    assert "It **replays** commits, see `git rebase -i`." in screen and "- first point" in screen


def test_piped_output_is_the_answer_byte_for_byte(fake):
    fake.set(reply=ANSWER, chunk_delay=0.01)
    done = run_conv_process("ask", "explain")
    assert done.returncode == 0 and done.stdout.decode() == ANSWER + "\n"


def test_rendering_keeps_escapes_out_and_secrets_masked(fake):
    hostile = ("# Title \x1b]52;c;aGVsbG8=\x07\n\nclick \x1b[31mred\x1b[0m and \u202eevil\u202c, "
               f"key {KEY[:10]}")
    fake.set(reply=hostile + f"{KEY[10:]} done\n- item \x1b[2J\n", chunk_delay=0.01)
    child = pexpect.spawn(sys.executable, ["-m", "conv", "ask", "go"],
                          env=conv_env({"TERM": "xterm", "LEAK_API_KEY": KEY}),
                          encoding="utf-8", timeout=30, dimensions=(40, 100))
    child.expect(pexpect.EOF)
    out = child.before
    assert "\x1b]52" not in out and "\x1b[2J" not in out and "\x1b[31m" not in out and "\u202e" not in out
    assert KEY not in out and KEY[:10] not in out.replace("***", "") and "***" in out
    assert "\x1b[1" in out  # and the Markdown was rendered


def test_a_plain_answer_stays_as_streamed_and_rich_is_never_imported(fake):
    """Lines Markdown leaves as they are are not taken back and rewritten: an
    answer of such lines costs a terminal ask no rendering (rich's import was a
    fifth of a second of every Alt-F answered in plain words)."""
    reply = "Plain words, nothing to render.\nA second line: with 2 (round) brackets, 50% done."
    fake.set(reply=reply, chunk_delay=0.01)
    child = pexpect.spawn(sys.executable, ["-m", "conv", "ask", "go"],
                          env=conv_env({"TERM": "xterm", "PYTHONPROFILEIMPORTTIME": "1"}),
                          encoding="utf-8", timeout=30, dimensions=(40, 100))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    lines = child.before.replace("\r\n", "\n").split("\n")
    answer = [line for line in lines if not line.startswith("import time:")]
    imported = {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}
    assert "\n".join(answer).strip() == reply  # no erase, no style: the bytes as streamed
    assert not {name for name in imported if name == "rich" or name.startswith("rich.")}


# Words and the marks that mean something in Markdown only in some places:
# every line made of them that AS_WRITTEN lets stand must render as itself.
TOKENS = st.one_of(
    st.text("abcxyzABC0123456789,.;:!?'\"()/+=%@$^{}-", min_size=1, max_size=8),
    st.sampled_from(["1.", "2)", "-", "+", "--", "---", "=", "==", ":smile:", "http://example.com/a",
                     "(c)", "(tm)", "...", "'quoted'", '"q"', "a:b", "$x$", "{}", "@me", "100%", "^2", "e.g.",
                     "www.example.com", "a--b", "x-1", "+1", "(1)", "1.5", "3)"]))


@settings(max_examples=300, deadline=None)
@given(first=st.sampled_from("aZ"), words=st.lists(TOKENS, min_size=1, max_size=12),
       gaps=st.sampled_from([" ", "  ", ""]))
def test_a_line_left_as_streamed_is_what_rich_would_render(first, words, gaps):
    line = first + gaps.join(words)
    assume(StreamedMarkdown._as_written(line))
    assert StreamedMarkdown(lambda text: None)._markdown(line) == line
