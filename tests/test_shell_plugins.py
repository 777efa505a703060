"""The zsh, bash and fish plugins (``conv init SHELL``) driven for real: each
shell runs in a tmux pane with a clean configuration, keys are typed, the
screen is read back, and the fake model server records what arrived.

Every test runs once per shell; see tests/shells.py for the harness."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import conv_env, ok, run_conv
from shells import CONV, SHELLS, Tmux, missing_tools

NEWLINE_KEYS = {  # keys that put a real newline into the command line
    "zsh": ("C-v", "C-j"),  # quoted-insert, then ^J
    "bash": ("C-v", "C-j"),  # readline quoted-insert, then ^J
    "fish": ("Escape", "Enter"),  # Alt-Enter inserts a newline
}
# Lines of each shell's language, for the rc files.
VI_MODE = {"zsh": "bindkey -v", "bash": "set -o vi", "fish": "fish_vi_key_bindings"}
NO_BIND = {"zsh": "CONV_NO_BIND=1", "bash": "CONV_NO_BIND=1", "fish": "set -g CONV_NO_BIND 1"}
STATUS = {"zsh": "echo $?", "bash": "echo $?", "fish": "echo $status"}
RELOAD = {"zsh": 'eval "$(conv init zsh)"', "bash": 'eval "$(conv init bash)"', "fish": "conv init fish | source"}


# -- fixtures and helpers ---------------------------------------------------------------

@pytest.fixture(params=SHELLS)
def kind(request):
    missing = missing_tools(request.param)
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")
    return request.param


@pytest.fixture
def tmux(tmp_path):
    with Tmux(tmp_path) as server:
        yield server


@pytest.fixture
def start(kind, tmux, fake, conv_home):
    """start(name=None, before=…, after=…): a shell of this test's kind with
    conv loaded, at its first prompt. BEFORE/AFTER: rc lines (a str, or a dict
    by shell) run before and after loading the plugin. The store exists
    already, as on any machine conv has answered on (made here, in-process:
    made by the first Alt-F it was a third of that key's time; what a first
    ask does is tested in test_cli_ask)."""
    fake.set(reply="ECHO")
    ok("hooks", "list")
    env = {"CONV_HOME": str(conv_home), "OPENAI_BASE_URL": fake.url}

    def start(name=None, before="", after=""):
        before = before[kind] if isinstance(before, dict) else before
        after = after[kind] if isinstance(after, dict) else after
        sh = tmux.shell(kind, env, name=name, rc_before=before, rc_after=after)
        sh.wait_prompt(timeout=15)
        return sh

    return start


def type_text(sh, text):
    """TEXT into the command line, its newlines as real newlines."""
    for i, part in enumerate(text.split("\n")):
        if i:
            sh.key(*NEWLINE_KEYS[sh.kind])
        if part:
            sh.type(part)


def ask(sh, text, key="M-f", timeout=15):
    """Type TEXT, press KEY (Alt-F), wait for the prompt to come back; the new prompt."""
    sh.wait_prompt()
    type_text(sh, text)
    return sh.press(key, timeout=timeout)


def conversations():
    done = run_conv("list", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def user_texts(request_body):
    return [m["content"] for m in request_body["messages"] if m["role"] == "user"]


def files_named(root, *names):
    return [p for name in names for p in root.rglob(name)]


def echoed(sh, command, tag):
    """Run ``echo TAG=…`` style COMMAND and read the value back off the screen."""
    sh.run(command)
    found = re.findall(rf"^{tag}=(.*)$", sh.screen(), re.M)
    assert found, sh.screen()
    return found[-1].strip()


def output_between_last_prompts(sh):
    """The non-blank lines printed between the last two prompt lines."""
    lines = sh.lines()
    at = [i for i, line in enumerate(lines) if re.match(r"^\[[^\]\n]*\][%#$>]( |$)", line)]
    assert len(at) >= 2, sh.screen()
    return [line for line in lines[at[-2] + 1:at[-1]] if line.strip()]


# -- 1. hostile command lines ---------------------------------------------------------------

HOSTILE = ("echo $(touch X) `touch X` 'single' \"double\" * ; | && !! ~ #c %F{red}%~ ${HOME} "
           "\\ \\n ü€ — 日本")
HOSTILE_NEWLINE = "first $(touch X) line\nsecond `touch X` 'line' \"*\""


@pytest.mark.parametrize("text", [HOSTILE, HOSTILE_NEWLINE], ids=["one-line", "newline"])
def test_hostile_buffer_arrives_verbatim_and_never_runs(start, fake, tmp_path, text):
    sh = start()
    prompt = ask(sh, text)

    assert len(fake.requests) == 1
    assert fake.requests[-1]["messages"][-1]["content"] == text
    assert files_named(tmp_path, "X") == [], "a command in the buffer ran"
    assert not (sh.cwd / "X").exists()
    assert prompt.buffer == "" and re.fullmatch(r"conv:[a-z0-9]+·2", prompt.segment), prompt


# -- 2. follow-ups ------------------------------------------------------------------------

def test_two_follow_ups_make_one_conversation(start, fake):
    sh = start()
    ask(sh, "first question")
    prompt = ask(sh, "second question")

    convs = conversations()
    assert len(convs) == 1 and convs[0]["turns"] == 4, convs
    assert prompt.segment == f"conv:{convs[0]['short']}·4"
    assert len(fake.requests) == 2
    assert [(m["role"], m["content"]) for m in fake.requests[1]["messages"] if m["role"] != "system"] == [
        ("user", "first question"), ("assistant", "first question"), ("user", "second question")]


# -- 3. two terminals ---------------------------------------------------------------------

def test_two_panes_two_conversations_and_conv_use(start, fake):
    one, two = start("one"), start("two")
    p1 = ask(one, "from pane one")
    p2 = ask(two, "from pane two")

    convs = {c["short"]: c for c in conversations()}
    assert len(convs) == 2, convs
    short1 = p1.segment.removeprefix("conv:").split("·")[0]
    short2 = p2.segment.removeprefix("conv:").split("·")[0]
    assert {short1, short2} == set(convs), (p1, p2, convs)
    assert p1.segment == f"conv:{short1}·2" and p2.segment == f"conv:{short2}·2"
    assert user_texts(fake.requests[1]) == ["from pane two"]  # pane two did not continue pane one

    # pane two switches to pane one's conversation
    prompt = two.run(f"conv use {convs[short1]['id']}")
    assert prompt.segment == f"conv:{short1}·2"
    prompt = ask(two, "pane two joins in")
    assert prompt.segment == f"conv:{short1}·4"
    assert user_texts(fake.requests[-1]) == ["from pane one", "pane two joins in"]
    convs = {c["short"]: c for c in conversations()}
    assert convs[short1]["turns"] == 4 and convs[short2]["turns"] == 2

    # pane one's follow-up lands there too, and its segment counts the turns
    prompt = ask(one, "pane one again")
    assert prompt.segment == f"conv:{short1}·6"
    assert user_texts(fake.requests[-1]) == ["from pane one", "pane two joins in", "pane one again"]


# -- 4. loading twice -------------------------------------------------------------------

# The last line of each rc file counts its runs; re-sourcing the rc must run it again.
RC_TAIL = {"zsh": "(( conv_rc_tail++ ))", "bash": "(( conv_rc_tail++ ))",
           "fish": "set -q conv_rc_tail; or set -g conv_rc_tail 0; set -g conv_rc_tail (math $conv_rc_tail + 1)"}
SOURCE_RC = {"zsh": "source $ZDOTDIR/.zshrc", "bash": "source $HOME/bashrc",
             "fish": "source $XDG_CONFIG_HOME/fish/config.fish"}


@pytest.mark.parametrize("how", ["eval-again", "rc-again"])
def test_loading_twice_registers_hooks_once(start, fake, kind, how):
    sh = start(after=RC_TAIL)
    session = echoed(sh, "echo S=$CONV_SESSION", "S")
    assert session
    sh.run(RELOAD[kind] if how == "eval-again" else SOURCE_RC[kind])
    # a second load is a no-op that says nothing …
    assert output_between_last_prompts(sh) == [], sh.screen()
    assert echoed(sh, "echo S=$CONV_SESSION", "S") == session
    # … and does not cut short the rc file that does it
    assert echoed(sh, "echo T=$conv_rc_tail", "T") == ("2" if how == "rc-again" else "1")

    if kind == "zsh":
        assert sh.output_of("print -l $precmd_functions").split().count("_conv_prompt_update") == 1
        assert sh.output_of("print -l $preexec_functions").split().count("_conv_remember_command") == 1
    elif kind == "bash":
        assert sh.output_of("declare -p PROMPT_COMMAND").count("_conv_prompt_update") == 1
    else:
        assert sh.output_of("functions -q conv_prompt; and echo defined").strip() == "defined"
        handlers = sh.output_of("functions --handlers-type generic")
        assert handlers.count("_conv_remember_command") == 1, handlers

    prompt = ask(sh, "once only")
    assert len(fake.requests) == 1
    assert user_texts(fake.requests[0]) == ["once only"]
    assert prompt.segment.endswith("·2")


# -- 5. vi mode -------------------------------------------------------------------------

@pytest.mark.parametrize("order", ["vi-after-conv", "vi-before-conv"])
def test_alt_f_in_vi_insert_mode(start, fake, kind, order):
    vi = VI_MODE[kind]
    sh = start(before=vi if order == "vi-before-conv" else "", after=vi if order == "vi-after-conv" else "")
    if kind == "zsh":
        assert "viins main" in sh.output_of("bindkey -lL main")
    elif kind == "bash":
        assert "vi-insert" in sh.output_of("bind -v | grep keymap")
    else:
        assert sh.output_of("echo $fish_bind_mode").strip() == "insert"

    ask(sh, "asked in vi insert mode")
    prompt = ask(sh, "and again")
    assert [user_texts(r)[-1] for r in fake.requests] == ["asked in vi insert mode", "and again"]
    assert prompt.segment.endswith("·4")


# -- 6. Ctrl-C ----------------------------------------------------------------------------

def test_ctrl_c_during_a_slow_answer(start, fake, kind):
    sh = start()
    fake.set(mode="slow", reply=None)  # 100 words, 0.2 s apart
    sh.type("answer slowly")
    n = sh.mark()
    sh.key("M-f")
    sh.wait_text(r"\bword3\b")
    sh.key("C-c")
    sh.wait_prompt(after=n, timeout=10)
    assert "word100" not in sh.screen()

    assert sh.output_of(STATUS[kind]).strip() == "130"
    shown = run_conv("show", "--json")
    assert shown.returncode == 0, shown.stderr
    last = json.loads(shown.stdout)["turns"][-1]
    assert last["role"] == "assistant" and last["finish"] == "interrupted", last
    assert last["content"].startswith("word1 word2 word3")
    # and the shell still works
    assert sh.output_of("echo still-here").strip() == "still-here"


# -- 7. a hostile state file ----------------------------------------------------------------

BAD_STATE = [
    b"$(touch Y) %F{red} 3 1 9999999999\n",
    b"k3f9x2abcdefghijklmnopqr $(touch${IFS}Y) 2 1 9999999999\n",  # the short id runs something
    b"k3f9x2abcdefghijklmnopqr `touch${IFS}Y` 2 1 9999999999\n",
    b"k3f9x2abcdefghijklmnopqr k3f9x2 $(touch${IFS}Y) 1 9999999999\n",  # the turn count does
    b"k3f9x2abcdefghijklmnopqr k3%F{red}9x2 2 1 9999999999\n",  # prompt escapes in the short id
    b"k3f9x2abcdefghijklmnopqr %~%n%M%# 2 1 9999999999\n",
    b"k3f9x2abcdefghijklmnopqr k3f9x2% 2 1 9999999999\n",
    b"k3f9x2abcdefghijklmnopqr \\e[31mk3 2 1 9999999999\n",
    b"k3f9x2abcdefghijklmnopqr k3f9x2\x1b]0;pwned\x07 2 1 9999999999\n",  # terminal escapes
    b"\xff\xfe\x00\x1b[2J\x80\x81 \xc3\x28 2 1 9999999999\n",  # garbage bytes
    b"k3f9x2abcdefghijklmnopqr K3F9X2 2 1 9999999999\n",
    b"k3f9x2abcdefghijklmnopqr k3f9x2 -2 1 9999999999\n",
    b"k3f9x2abcdefghijklmnopqr k3f9x2 2e3 1 9999999999\n",
    b"k3f9x2abcdefghijklmnopqr k3f9x2 0x1f 1 9999999999\n",
    b"k3f9x2abcdefghijklmnopqr k3f9x2\r 2 1 9999999999\n",
    b"\n",
    b"",
    b"k3f9x2\n",
]
# Only the expiry is wrong: zsh and bash hide these; fish has no builtin clock
# and documents that it does not look at the expiry, so there the segment may
# show, but only as the validated short id and turn count.
BAD_EXPIRY = [
    b"k3f9x2abcdefghijklmnopqr k3f9x2 2 1 " + b"9" * 40 + b"\n",  # a huge number
    b"k3f9x2abcdefghijklmnopqr k3f9x2 2 1 $(touch${IFS}Y)\n",
    b"k3f9x2abcdefghijklmnopqr k3f9x2 2 1 1\n",  # long expired
]


def test_hostile_state_file_shows_nothing_and_runs_nothing(start, kind, tmp_path, conv_home):
    sh = start()
    session = echoed(sh, "echo S=$CONV_SESSION", "S")
    assert re.fullmatch(r"[A-Za-z0-9_.-]+", session), session
    sessions = conv_home / "state" / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    state = sessions / session

    def check(content, allowed=("",)):
        prompt = sh.press("Enter")
        assert prompt.segment in allowed, (content, prompt, sh.screen()[-3000:])
        assert output_between_last_prompts(sh) == [], (content, sh.screen())
        assert files_named(tmp_path, "Y") == [], content

    for content in BAD_STATE:
        state.write_bytes(content)
        check(content)
    for content in BAD_EXPIRY:
        state.write_bytes(content)
        check(content, ("",) if kind != "fish" else ("", "conv:k3f9x2·2"))
    # a huge turn count is digits after all: shown as such or not at all
    state.write_bytes(b"k3f9x2abcdefghijklmnopqr k3f9x2 " + b"9" * 40 + b" 1 9999999999\n")
    check("huge turns", ("", "conv:k3f9x2·" + "9" * 40))

    # not a regular file: a directory, a FIFO (reading it would hang the shell), a device
    state.unlink()
    state.mkdir()
    check("a directory")
    state.rmdir()
    os.mkfifo(state)
    check("a fifo")
    state.unlink()
    state.symlink_to("/dev/zero")
    check("/dev/zero")
    state.unlink()

    # what conv itself writes still shows, and the shell still works
    state.write_bytes(b"k3f9x2abcdefghijklmnopqr k3f9x2 2 1 9999999999\n")
    check("a good file", ("conv:k3f9x2·2",))
    assert sh.output_of("echo alive").strip() == "alive"
    assert files_named(tmp_path, "Y") == []


# -- 8. empty line ----------------------------------------------------------------------

def test_empty_line_shows_the_last_exchange(start, fake):
    sh = start()
    fake.set(reply="THE-LAST-ANSWER about walruses")
    ask(sh, "tell me about walruses")
    ask(sh, "and their tusks")
    requests = len(fake.requests)
    screen = sh.screen()
    before = screen.count("THE-LAST-ANSWER")

    prompt = sh.press("M-f")
    after = sh.screen()
    assert len(fake.requests) == requests, "an empty line sent a request"
    assert after.count("THE-LAST-ANSWER") == before + 1, after
    shown = after[after.rindex("conv show --last 2"):]
    # the last two turns (the title is the first question), not the first two
    assert "3. user" in shown and "and their tusks" in shown and "4. assistant" in shown, shown
    assert "1. user" not in shown and "2. assistant" not in shown, shown
    assert prompt.segment.endswith("·4")


# -- 9. history -----------------------------------------------------------------------------

QUESTION = "what's \"up\" with $HOME and *.py; `ls` | wc -l?"


def test_history_holds_a_conv_command_that_asks_again(start, kind):
    sh = start()
    ask(sh, QUESTION)
    ask(sh, "second")
    history = sh.output_of("history" if kind == "fish" else "fc -ln 1")
    lines = [line.strip() for line in history.splitlines() if line.strip()]
    asks = [shell_words(kind, line) for line in lines if line.startswith("conv ask")]
    if kind == "fish":
        asks.reverse()  # fish lists the newest first
    assert asks == [["conv", "ask", "-c", "--", QUESTION], ["conv", "ask", "-c", "--", "second"]], history


# What stays on the screen where the question was typed: the line that runs, as history keeps it.
ASKED = {"follow": ["conv", "ask", "-c", "--"], "new": ["conv", "ask", "--"]}


def shell_words(kind, line):
    """LINE split into words by the shell KIND itself, or None while a quote is open."""
    done = subprocess.run([kind, "-c", "printf '%s\\0' " + line], capture_output=True, text=True, timeout=10)
    return done.stdout.split("\0")[:-1] if done.returncode == 0 and not done.stderr else None


def asked_lines(sh, program="conv"):
    """The PROGRAM commands left on prompt lines, each as its text and its words (a
    question with newlines goes on below its prompt line; fish indents those lines
    under the command)."""
    lines, found = sh.lines(), []
    for i, line in enumerate(lines):
        m = re.match(r"^\[[^\]\n]*\][%#$>] ('?" + re.escape(program) + r"'? .*)$", line)
        if m:
            command, rest = m[1], iter(lines[i + 1:])
            while (words := shell_words(sh.kind, command)) is None:
                more = next(rest)
                command += "\n" + (more.lstrip(" ") if sh.kind == "fish" else more)
            found.append((command, words))
    return found


@pytest.mark.parametrize("key, mode", [("M-f", "follow"), ("M-n", "new")])
def test_the_screen_shows_the_question_asked_as_history_keeps_it(start, kind, key, mode):
    """Issue 14: after Alt-F the scrollback showed the helper `_conv_run` where the
    question was; it shows the conv command that asked it, the very line history holds."""
    sh = start()
    ask(sh, QUESTION, key=key)
    ask(sh, "two\nlines", key=key)
    screen = sh.screen()
    assert "_conv_run" not in screen, screen
    shown = asked_lines(sh)
    assert [words for _, words in shown] == [ASKED[mode] + [QUESTION], ASKED[mode] + ["two\nlines"]], screen

    history = sh.output_of("history" if kind == "fish" else "fc -ln 1")
    assert "_conv_run" not in history, history
    first = [line.strip() for line in history.splitlines() if "with $HOME" in line]
    assert first == [shown[0][0]], history


def test_without_conv_on_path_the_line_names_it_in_full(start, fake, kind):
    """A plugin loaded by its full path (conv not on PATH) still asks, and the
    line left on the screen runs that conv."""
    path = {"zsh": "PATH=/usr/bin:/bin", "bash": "PATH=/usr/bin:/bin", "fish": "set -gx PATH /usr/bin /bin"}
    sh = start(after=path)
    ask(sh, "asked from a bare PATH")
    [(command, words)] = asked_lines(sh, program=str(CONV))
    assert words == [str(CONV), "ask", "-c", "--", "asked from a bare PATH"], command
    assert user_texts(fake.requests[-1]) == ["asked from a bare PATH"]


# Words the shell would expand if they reached it unquoted: a zsh global alias, a fish
# abbreviation that expands anywhere, and bash aliases (one ending in a space makes the
# next word an alias too).
EXPANDS = {"zsh": "alias -g WORD='; touch X'",
           "bash": "alias conv='conv '; alias WORD='; touch X'",
           "fish": "abbr -a --position anywhere WORD '; touch X'"}


def test_a_word_the_shell_would_expand_arrives_as_typed(start, fake, tmp_path):
    sh = start(after=EXPANDS)
    ask(sh, "WORD")
    ask(sh, "!!")
    assert [r["messages"][-1]["content"] for r in fake.requests] == ["WORD", "!!"]
    assert files_named(tmp_path, "X") == [], "an alias in the question ran"


def test_shared_last_command_is_the_one_before_the_key(start, fake):
    """CONV_SHARE_LAST_COMMAND=1: the question carries the last command the user ran
    and its status, never conv's own line from an earlier Alt-F."""
    share = {"zsh": "export CONV_SHARE_LAST_COMMAND=1", "bash": "export CONV_SHARE_LAST_COMMAND=1",
             "fish": "set -gx CONV_SHARE_LAST_COMMAND 1"}
    sh = start(before=share)
    sh.run("true an-earlier-command")  # issue 23: bash sent this one, with the status of the next
    sh.run("ls /no/such/dir-here")
    ask(sh, "why did that fail?")
    ask(sh, "and now?")
    sent = [r["messages"][-1]["content"] for r in fake.requests]
    assert "ls /no/such/dir-here" in sent[0] and "why did that fail?" in sent[0], sent[0]
    assert "an-earlier-command" not in sent[0] and "status 0" not in sent[0], sent[0]
    assert "ls /no/such/dir-here" in sent[1] and "conv ask" not in sent[1], sent[1]
    assert echoed(sh, 'echo "L=$CONV_LAST_COMMAND"', "L") == ""  # nothing left behind for other commands


# -- 10. CONV_NO_BIND ------------------------------------------------------------------------

BIND_OWN = {"zsh": "bindkey '\\ex' conv-follow-up", "bash": "conv_bind_keys '\\ex' '\\ey'",
            "fish": "bind \\ex conv_follow_up"}
SHOW_BINDING = {"zsh": "bindkey '\\ef'; bindkey -M viins '\\ef'; bindkey '\\ek'", "bash": "bind -X; bind -s",
                "fish": "bind \\ef; bind -M insert \\ef; bind \\ek"}


def test_no_bind_binds_nothing_but_keeps_the_widget(start, fake, kind):
    sh = start(before=NO_BIND)
    sh.type("nobind question")
    sh.key("M-f")
    sh.type(" more")
    # the line is still being edited: Alt-F did not take it away
    def kept(p):
        screen = p.screen()
        last = p.last_prompt(screen)
        return last and last.buffer.startswith("nobind question") and " more" in last.buffer \
            and len(p.prompts(screen)) == 1

    sh.wait(kept, "the line kept in the editor")
    assert fake.requests == []
    sh.key("C-e", "C-u")
    sh.wait_prompt()

    bindings = sh.output_of(SHOW_BINDING[kind])
    assert "conv" not in bindings and "\\C-x\\C-_" not in bindings, bindings

    sh.run(BIND_OWN[kind])
    ask(sh, "bound by hand", key="M-x")
    assert len(fake.requests) == 1
    assert fake.requests[0]["messages"][-1]["content"] == "bound by hand"


# -- 11. Alt-N -------------------------------------------------------------------------------

def test_alt_n_starts_a_new_conversation(start, fake):
    sh = start()
    first = ask(sh, "the first conversation")
    second = ask(sh, "a fresh start", key="M-n")

    assert user_texts(fake.requests[-1]) == ["a fresh start"]
    convs = {c["short"]: c for c in conversations()}
    assert len(convs) == 2, convs
    short1 = first.segment.removeprefix("conv:").split("·")[0]
    assert second.segment != first.segment and second.segment.endswith("·2")
    short2 = second.segment.removeprefix("conv:").split("·")[0]
    assert {short1, short2} == set(convs)

    third = ask(sh, "continue the fresh one")
    assert third.segment == f"conv:{short2}·4"
    assert user_texts(fake.requests[-1]) == ["a fresh start", "continue the fresh one"]
    assert convs[short1]["turns"] == 2


def test_alt_n_right_after_an_answer_takes_that_s_wrong_as_feedback(start, fake):
    """Alt-N is a plain conv ask: a short "the answer is wrong" soon after an
    answer asks that question again (issue 13, the seed's pattern P1)."""
    sh = start()
    ask(sh, "explain git rebase", key="M-n")
    ask(sh, "the answer is wrong", key="M-n")
    assert fake.requests[-1]["messages"][-1]["content"] == "That answer was wrong. Please answer again."
    assert user_texts(fake.requests[-1])[0] == "explain git rebase"
    [conv] = conversations()
    assert conv["turns"] == 2 and conv["wrong"] == 1


def test_the_readmes_bash_check_shows_the_bindings(conv_home):
    """The README's troubleshooting line for bash prints Alt-F's binding and its helper."""
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    check = re.search(r"`(bind -s \| grep -F '\\ef'; bind -X \| grep conv)`", readme)[1]
    script = f'eval "$({sys.executable} -m conv init bash)"; {check}'
    out = subprocess.run(["bash", "-ic", script], capture_output=True, text=True, env=conv_env(), timeout=30).stdout
    assert '"\\ef": "\\C-x\\C-_f\\C-m"' in out and '"_conv_stash follow"' in out


# -- 12. Alt-K: a description becomes a command in the buffer ------------------------------

INJECTION = "ls -la $(touch X) `touch X`; rm -rf victim"
CLEAR_LINE = ("C-e", "C-u")


def buffer_is(sh, text, prompts=1, timeout=15):
    """Until the line being edited holds TEXT, with PROMPTS prompt lines on the
    screen (one: nothing ran; None: a shell may draw its prompt again after a message)."""
    def holds(p):
        found = p.prompts()
        return found and found[-1].buffer == text and prompts in (None, len(found))
    return sh.wait(holds, f"the line {text!r}", timeout)


def test_alt_k_puts_the_command_in_the_line_as_data_and_refines_it(start, fake, kind, tmp_path):
    sh = start()
    (sh.cwd / "victim").mkdir()
    fake.set(reply=f"Here it is:\n```{kind}\n\x1b]0;pwned\x07{INJECTION}\x1b[31m\n```\n"
                   "Or, with fd: fd -t f\n")
    sh.type("list the files here")
    sh.key("M-k")
    buffer_is(sh, INJECTION, None)
    assert files_named(tmp_path, "X") == [] and (sh.cwd / "victim").is_dir(), "the command ran"
    system = fake.requests[0]["messages"][0]
    assert system["role"] == "system" and f"one {kind} command for Linux" in system["content"]

    sh.key(*CLEAR_LINE)
    fake.set(reply="ls -laR")
    sh.type("make it recursive")
    sh.key("M-k")
    buffer_is(sh, "ls -laR", None)
    assert user_texts(fake.requests[1]) == ["list the files here", "make it recursive"]
    assert fake.requests[1]["messages"][2]["role"] == "assistant"
    [conv] = conversations()
    assert conv["turns"] == 5  # the system prompt, two questions, two answers
    sh.key(*CLEAR_LINE)
    assert sh.run("true").segment == "", "the command conversation became the one Alt-F continues"


def test_alt_k_inserts_a_continued_command_that_runs_only_on_enter(start, fake):
    sh = start()
    fake.set(reply="printf '%s\\n' one \\\n  two > made.txt\n\n")
    sh.type("write one and two to a file")
    sh.key("M-k")
    sh.wait_text(r"^\s*two > made\.txt\s*$")
    assert sh.lines()[-2].endswith("printf '%s\\n' one \\") or "printf '%s\\n' one \\" in sh.screen()
    assert not (sh.cwd / "made.txt").exists(), "the trailing newline ran the line"
    n = sh.mark()
    sh.key("Enter")
    sh.wait_prompt(after=n)
    assert (sh.cwd / "made.txt").read_text() == "one\ntwo\n"


def test_alt_k_failure_or_ctrl_c_leaves_the_line_as_typed(start, fake):
    sh = start()
    fake.set(mode="401")
    sh.type("describe $(touch X) this")
    sh.key("M-k")
    sh.wait_text("Incorrect API key")
    buffer_is(sh, "describe $(touch X) this", None)

    fake.set(mode="hang")
    sh.key("M-k")
    sh.wait(lambda p: len(fake.requests) == 2, "the second request")
    sh.key("C-c")
    sh.type(" and more")
    buffer_is(sh, "describe $(touch X) this and more", None)
    assert not (sh.cwd / "X").exists()


def test_conv_command_key_rebinds_alt_k(start, fake, kind):
    sh = start(before={"zsh": "CONV_COMMAND_KEY='\\ej'", "bash": "CONV_COMMAND_KEY='\\ej'",
                       "fish": "set -g CONV_COMMAND_KEY \\ej"})
    fake.set(reply="echo 'grüße, 世界'")
    sh.type("greet the world")
    sh.key("M-j")
    buffer_is(sh, "echo 'grüße, 世界'", None)
    sh.type(" >> greetings")  # the cursor is at the end of the command, however many bytes it has
    buffer_is(sh, "echo 'grüße, 世界' >> greetings", None)


def test_alt_k_says_it_is_asking_while_it_waits_and_leaves_a_line_with_no_command(start, fake):
    """In all three shells a line says conv is asking; an answer with no
    command in it leaves the line as typed, with conv's one line saying why."""
    sh = start()
    fake.set(reply="ls -la", delay=3)
    sh.type("list the files")
    sh.key("M-k")
    sh.wait_text("conv: asking for a command…", timeout=3)
    buffer_is(sh, "ls -la", None)
    fake.set(reply="I cannot help with that.", delay=0)
    sh.key(*CLEAR_LINE)
    sh.type("do something impossible")
    sh.key("M-k")
    sh.wait_text("the answer holds no command")
    buffer_is(sh, "do something impossible", None)



def test_alt_j_searches_every_turn_as_you_type_and_enter_continues_the_one_chosen(start, fake, kind):
    """Search as you type (atuin's Ctrl-R, for conversations): the line typed in,
    every turn of every conversation searched, the matching turn previewed."""
    fake.set(reply="Webhooks are retried five times, then an alert.")
    ok("ask", "webhook deliveries keep failing")
    fake.set(reply="Use pg_dump nightly.")
    ok("ask", "-n", "set up the postgres backups")
    wanted = [c for c in conversations() if c["title"] == "webhook deliveries keep failing"][0]
    sh = start()
    type_text(sh, "retri")  # a word being typed: its start finds "retried"
    sh.key("M-j")
    sh.wait_text(r"turn 2 \(assistant\): Webhooks are retried five times", timeout=15)
    screen = sh.screen()
    assert "webhook deliveries keep failing" in screen and "postgres" not in screen
    sh.type("ed fi")  # "retried fi…": still found, the preview follows
    sh.wait_text(r"> retried fi")
    sh.key("Enter")
    prompt = sh.wait_prompt(after=1, timeout=15)
    assert prompt.segment == f"conv:{wanted['short']}·2", sh.screen()
    fake.set(reply="ECHO")
    ask(sh, "and the alert goes where?")
    assert user_texts(fake.requests[-1]) == ["webhook deliveries keep failing", "and the alert goes where?"]
