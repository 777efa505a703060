"""conv chat in a pseudo-terminal (pexpect) against the loopback fake; what a
typed line means (services/chat.py) without one."""

import json
import sys
import time

import pexpect
import pytest
from conftest import conv_env, fails, git, ok
from fakeserver import SLOW_REPLY

from conv.errors import UsageError
from conv.services.chat import Command, Composer

PROMPT = r"conv( [0-9a-z_-]+)?> "  # before the first message: "conv> "


class Chat:
    """A ``conv chat`` process at the other end of a pseudo-terminal."""

    def __init__(self, *args: str, env: dict | None = None):
        self.p = pexpect.spawn(
            sys.executable, ["-m", "conv", "chat", *args], env=conv_env({"NO_COLOR": "1", **(env or {})}),
            encoding="utf-8", timeout=30, dimensions=(50, 200),
        )
        self.p.expect(PROMPT)
        self.greeting = self.p.before

    def say(self, line: str) -> str:
        """Type ``line`` and Enter; what was printed until the next prompt (the echo cut off)."""
        self.p.sendline(line)
        self.p.expect(PROMPT)
        return self.p.before.replace("\r\n", "\n").split("\n", 1)[1]

    @property
    def short(self) -> str:
        return self.p.match.group(1).strip()

    def leave(self) -> str:
        """Ctrl-D on an empty line: what was printed; the process must exit 0."""
        self.p.sendeof()
        self.p.expect(pexpect.EOF)
        self.p.close()
        assert self.p.exitstatus == 0, (self.p.exitstatus, self.p.before)
        return self.p.before.replace("\r\n", "\n")


def shown(ref: str) -> dict:
    return json.loads(ok("show", "--json", ref).stdout)


def said(request: dict) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in request["messages"]]


@pytest.fixture
def chat(fake):
    session = Chat()
    yield session
    session.p.close(force=True)


def test_three_messages_carry_the_earlier_turns_and_every_turn_is_stored(fake, store_path, conv_home):
    history = conv_home / "state" / "chat_history"
    history.parent.mkdir(parents=True)
    history.write_text("".join(f"old {n}\n" for n in range(1005)))
    chat = Chat()
    try:
        assert "a new conversation" in chat.greeting
        fake.set(reply="ECHO")
        assert chat.say("one") == "one\n"
        short = chat.short
        assert chat.say("two") == "two\n"
        assert chat.say("three") == "three\n"
        assert chat.short == short
        assert said(fake.requests[-1]) == [
            ("user", "one"), ("assistant", "one"), ("user", "two"), ("assistant", "two"), ("user", "three"),
        ]
        out = chat.leave()
    finally:
        chat.p.close(force=True)
    assert f"conv chat {short}" in out and f"conv ask --cid {short}" in out
    conv = shown(short)
    assert [(t["content"], t["finish"]) for t in conv["turns"] if t["role"] == "assistant"] == [
        ("one", "stop"), ("two", "stop"), ("three", "stop"),
    ]
    log = git(store_path, "log", "--format=%s").splitlines()
    assert sum(line == f"{conv['id']}: ask" for line in log) == 3
    lines = history.read_text().splitlines()
    assert len(lines) == 1000 and lines[-3:] == ["one", "two", "three"]  # capped, newest kept


def test_retry_title_show_and_fork(fake, chat):
    fake.set(reply="Merge joins histories.")
    chat.say("explain rebase")
    first = chat.short
    fake.set(reply="Rebase replays commits.")
    assert chat.say("/retry it is about rebase") == "Rebase replays commits.\n"
    assert said(fake.requests[-1])[-1] == ("user", "That answer was wrong: it is about rebase. Please answer again.")
    answers = [t["content"] for t in shown(first)["turns"] if t["role"] == "assistant"]
    assert answers == ["Rebase replays commits."]  # replaced; the old one stays in git history

    chat.say("/title rebase   notes")
    assert shown(first)["title"] == "rebase notes"
    assert chat.say("/title").strip() == "rebase notes"
    page = chat.say("/show")
    assert "rebase notes" in page and "1. user" in page and "explain rebase" in page
    assert "2. assistant" in page and "Rebase replays commits." in page

    out = chat.say("/fork 2")
    fork = chat.short
    assert fork != first and f"forked {first} at turn 2; this chat goes on in {fork}" in out
    fake.set(reply="In the fork.")
    chat.say("and interactive?")
    assert said(fake.requests[-1]) == [
        ("user", "explain rebase"), ("assistant", "Rebase replays commits."), ("user", "and interactive?"),
    ]
    assert len(shown(fork)["turns"]) == 4 and len(shown(first)["turns"]) == 2
    assert "conv: error: /fork takes a turn number, not 'x'" in chat.say("/fork x")  # and the chat goes on
    assert "conv chat " + fork in chat.leave()


def test_commands_lines_and_blocks(fake, chat):
    before = chat.say("/title")
    assert "conv: error: no conversation yet. Type a message first" in before
    assert ("conv: error: unknown command /nope. The commands are /retry, /fork, /title, /show, /new, /clear, "
            "/history, /model, /file, /stop, /help, /exit") in chat.say("/nope")
    chat.p.send("/he\t")  # Tab completes a command
    help_text = chat.say("")
    assert "/retry [HINT]" in help_text and 'two lines of """' in help_text
    chat.say("")
    chat.say("   ")
    assert fake.requests == []  # empty lines ask nothing
    fake.set(reply="ECHO")
    assert chat.say("//etc holds config?") == "/etc holds config?\n"
    chat.p.sendline("first\\")
    chat.p.expect(r"\.\.\. ")
    assert chat.say("second") == "first\nsecond\n"
    for line in ('"""', "def f():", "    return 1\\", ""):
        chat.p.sendline(line)
        chat.p.expect(r"\.\.\. ")
    assert chat.say('"""') == "def f():\n    return 1\\\n"
    chat.p.sendline("/exit")
    chat.p.expect(pexpect.EOF)
    chat.p.close()
    assert chat.p.exitstatus == 0


def test_ctrl_c_stops_an_answer_keeps_the_part_and_clears_a_typed_line(fake, chat):
    fake.set(mode="slow", chunk_delay=0.3)
    chat.p.sendline("count slowly")
    chat.p.expect("word2 ")
    time.sleep(0.1)  # between two pieces (a signal inside a write is a separate, known race)
    chat.p.sendintr()
    chat.p.expect("answer stopped; the part that arrived is saved")
    chat.p.expect(PROMPT)
    conv = shown(chat.short)
    (answer,) = [t for t in conv["turns"] if t["role"] == "assistant"]
    assert answer["finish"] == "interrupted"
    assert SLOW_REPLY.startswith(answer["content"]) and "word2" in answer["content"]
    assert answer["content"] != SLOW_REPLY

    chat.p.send("half typed")
    time.sleep(0.3)
    chat.p.sendintr()  # at the prompt: the line is dropped, the chat stays
    chat.p.expect(PROMPT)
    fake.set(mode="ok", reply="Done.")
    assert chat.say("go on") == "Done.\n"
    assert said(fake.requests[-1]) == [
        ("user", "count slowly"), ("assistant", answer["content"]), ("user", "go on"),
    ]
    chat.leave()


def test_a_server_down_is_one_line_and_the_chat_goes_on(fake, chat):
    fake.set(reply="Up.")
    chat.say("first")
    fake.stop()
    out = chat.say("while down")
    lines = out.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("conv: error: cannot reach "), out
    fake.start()  # the same port again
    assert chat.say("back up?") == "Up.\n"
    assert ("user", "while down") in said(fake.requests[-1])
    questions = [t["content"] for t in shown(chat.short)["turns"] if t["role"] == "user"]
    assert questions == ["first", "while down", "back up?"]
    chat.leave()


def test_the_first_question_is_kept_even_when_its_answer_fails(fake, conv_home):
    fake.stop()
    session = Chat()
    try:
        assert "conv: error: cannot reach " in session.say("anyone there?")
        short = session.short  # the chat is in the conversation the question started
        assert [t["content"] for t in shown(short)["turns"] if t["role"] == "user"] == ["anyone there?"]
        assert f"conv chat {short}" in session.leave()
    finally:
        session.p.close(force=True)
    assert (conv_home / "state" / "chat_history").stat().st_mode & 0o777 == 0o600  # it holds questions


def test_chat_ref_and_dash_c_go_on_with_an_existing_conversation(fake):
    fake.set(reply="Earlier answer.")
    conv_id = json.loads(ok("ask", "--json", "earlier question").stdout)["conversation"]
    for args in ([conv_id[:6]], ["-c"]):
        session = Chat(*args)
        try:
            assert "going on with" in session.greeting and conv_id.startswith(session.short)
            fake.set(reply="Later answer.")
            session.say(f"later {args[0]}")
            assert said(fake.requests[-1])[:2] == [("user", "earlier question"), ("assistant", "Earlier answer.")]
            session.leave()
        finally:
            session.p.close(force=True)
    assert len(shown(conv_id)["turns"]) == 6
    session = Chat(conv_id)
    try:
        session.p.send("\x1b[A")  # Up: the history file brings back the last line of the last chat
        session.say("")
        assert said(fake.requests[-1])[-1] == ("user", "later -c")
        session.leave()
    finally:
        session.p.close(force=True)


@pytest.mark.parametrize("no_color, prompt", [("", "\x1b[36mconv>\x1b[0m "), ("1", "conv> ")])
def test_the_prompt_is_coloured_on_a_terminal_unless_no_color(fake, no_color, prompt):
    p = pexpect.spawn(sys.executable, ["-m", "conv", "chat"], env=conv_env({"NO_COLOR": no_color}),
                      encoding="utf-8", timeout=30)
    try:
        p.expect_exact(prompt)
        assert no_color == "" or "\x1b[3" not in p.before
    finally:
        p.close(force=True)


def test_an_agent_starts_the_conversation(fake):
    assert "-a starts a new conversation" in fails("chat", "k3f9x2", "-a", "coder", code=2)
    assert "no agent 'coder' in config" in fails("chat", "-a", "coder", code=2)  # before any typing
    ok("config", "set", "agents.coder.system", "You write code.")
    session = Chat("-a", "coder")
    try:
        session.say("a loop in bash")
        assert said(fake.requests[-1]) == [("system", "You write code."), ("user", "a loop in bash")]
        assert session.short.startswith("coder-")
        session.leave()
    finally:
        session.p.close(force=True)


# -- what a typed line means, without a terminal -----------------------------------------
def test_composer():
    c = Composer()
    assert c.feed("hello") == "hello" and not c.pending
    assert c.feed("") is None and c.feed("  ") is None
    assert c.feed("/retry  not that one ") == Command("retry", "not that one")
    assert c.feed("/show") == Command("show")
    assert c.feed("//etc") == "/etc"
    assert c.feed("a \\") is None and c.pending
    assert c.feed("/show") == "a \n/show"  # a continued line is never a command
    assert c.feed('"""') is None and c.feed("x\\") is None and c.feed("") is None
    assert c.feed('"""') == "x\\\n"
    assert c.feed("half\\") is None
    c.reset()
    assert not c.pending and c.feed("whole") == "whole"
    with pytest.raises(UsageError, match="unknown command /nope"):
        c.feed("/nope now")
    assert not c.pending


def test_new_clear_history_and_model_commands(fake, chat):
    chat.say("first topic")
    first = chat.short
    out = chat.say("/new")
    assert f"left {first} (kept); the next message starts a new conversation" in out
    chat.say("second topic")
    second = chat.short
    assert second != first and said(fake.requests[-1]) == [("user", "second topic")]
    chat.say("/clear")
    chat.say("third topic")
    third = chat.short
    assert said(fake.requests[-1]) == [("user", "third topic")]
    history = chat.say("/history").splitlines()
    assert [line.split()[0] for line in history] == [f" {first}".strip(), second, f"*{third}"]
    assert "first topic" in history[0] and "2 turns" in history[0]

    assert "model: openai:" in chat.say("/model")  # the last answer's
    assert "the next answers come from openai:other-model" in chat.say("/model other-model")
    chat.say("and with the other model?")
    assert fake.requests[-1]["model"] == "other-model"
    assert shown(third)["turns"][-1]["model"] == "other-model"
    assert "conv: error:" in chat.say("/model openai:")  # refused at once; the chat goes on
    chat.say("still here")
    assert fake.requests[-1]["model"] == "other-model"


def test_leaving_pauses_the_conversation_and_the_next_question_makes_it_active(fake, chat, store_path):
    chat.say("a question")
    short = chat.short
    conv_id = shown(short)["id"]
    left = chat.leave()
    assert f"paused {short}; to go on later: conv chat {short}, conv resume" in left
    assert shown(conv_id)["status"] == "paused"
    assert git(store_path, "log", "-1", "--format=%s").startswith(f"{conv_id}: status paused")
    ok("ask", "--cid", conv_id, "back again")
    assert shown(conv_id)["status"] == "active"
    assert git(store_path, "log", "--format=%s").splitlines()[1] == f"{conv_id}: ask (active again)"

    again = Chat(short)  # /stop pauses and leaves too
    again.p.sendline("/stop")
    again.p.expect(pexpect.EOF)
    assert f"paused {short}" in again.p.before
    assert shown(conv_id)["status"] == "paused"


def test_a_stop_phrase_offers_to_pause(fake, chat):
    chat.say("a question")
    short = chat.short
    sent = len(fake.requests)
    chat.p.sendline("ok, that's enough.")
    chat.p.expect(r"pause \S+ and leave\? \[y/N\] ")
    chat.p.sendline("n")
    chat.p.expect(PROMPT)
    assert len(fake.requests) == sent + 1  # declined: it was sent as a message
    chat.p.sendline("I need to go")
    chat.p.expect(r"pause \S+ and leave\? \[y/N\] ")
    chat.p.sendline("y")
    chat.p.expect(pexpect.EOF)
    assert f"paused {short}" in chat.p.before and len(fake.requests) == sent + 1
    assert shown(short)["status"] == "paused"


def test_file_goes_with_the_next_message_only(fake, chat, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("the build fails on arm64\n")
    assert "conv: error: no such file: nowhere.txt" in chat.say("/file nowhere.txt")  # at once; the chat goes on
    assert f"{notes} (text/plain, 25 bytes) goes with the next message" in chat.say(f"/file {notes}")
    chat.say("why?")
    content = fake.requests[-1]["messages"][-1]["content"]
    assert content.startswith("why?\n\n") and "the build fails on arm64" in content
    chat.say("and now?")
    assert fake.requests[-1]["messages"][-1]["content"] == "and now?"  # sent once; the earlier turn still holds it
    assert "the build fails on arm64" in fake.requests[-1]["messages"][0]["content"]
    assert shown(chat.short)["turns"][0]["files"][0]["name"] == str(notes)
