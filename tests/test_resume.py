"""conv resume: the fuzzy ranking as pure functions, then the real command,
without a terminal and driven through a pseudo-terminal (pexpect)."""

import io
import json
import os
import re
import shlex
import signal
import sys

import pexpect
import pytest
from conftest import conv_env, fails, ok

from conv.services.resume import (
    TIER_FUZZY,
    TIER_TEXT,
    TIER_TITLE,
    Candidate,
    Ranked,
    clear_choice,
    fuzzy,
    rank,
)

SESSION = {"CONV_SESSION": "term-r"}
DOWN, UP, ESC = "\x1b[B", "\x1b[A", "\x1b"


# -- scoring, without a terminal -------------------------------------------------
def candidate(title: str, first: str = "", last: str = "", n: int = 0) -> Candidate:
    return Candidate(f"id{n}", f"s{n}", "2026-01-01T00:00:00Z", False, title, first, last)


def test_a_term_matches_as_a_subsequence_in_any_case():
    score, positions = fuzzy("gtrb", "Git ReBase")
    assert positions == [0, 2, 4, 6]
    assert fuzzy("gtrb", "git") is None
    assert fuzzy("bg", "git rebase") is None  # letters in order only


def test_word_starts_and_consecutive_letters_score_higher():
    assert fuzzy("gc", "git commit")[0] > fuzzy("gc", "jiggcar")[0] > fuzzy("gc", "jig hunch")[0]
    assert fuzzy("reb", "the rebase")[0] > fuzzy("reb", "re-mob")[0]
    assert fuzzy("reb", "re-rebase")[1] == [3, 4, 5]  # the best alignment, not the first
    assert fuzzy("gr", "gitRebase")[0] > fuzzy("gr", "gitrebase")[0]  # camelCase counts as a word start


def test_ranking_puts_titles_holding_the_words_first_then_text_then_fuzzy():
    found = [
        candidate("grep with regex base", n=0),
        candidate("squash commits", "how?", "use git rebase -i", n=1),
        candidate("git rebase interactive", n=2),
        candidate("rust borrow checker", n=3),
    ]
    ranked = rank("reb", found)
    assert [(r.candidate.id, r.tier) for r in ranked] == [("id2", TIER_TITLE), ("id1", TIER_TEXT), ("id0", TIER_FUZZY)]
    assert ranked[0].marks == {"title": [4, 5, 6]} and ranked[1].marks == {"last": [8, 9, 10]}
    assert clear_choice(ranked) is found[2]  # the only title holding the words
    assert rank("zzz", found) == [] and clear_choice([]) is None


def test_every_word_must_match_and_a_tie_keeps_the_newest_first():
    found = [candidate("rebase notes", n=0), candidate("rebase notes", n=1), candidate("python rebase", n=2)]
    assert [r.candidate.id for r in rank("python reb", found)] == ["id2"]
    assert [r.candidate.id for r in rank("rebase", found)][:2] == ["id0", "id1"]
    assert clear_choice(rank("rebase notes", found)) is None  # two titles hold the words: a question
    assert [r.candidate.id for r in rank("", found)] == ["id0", "id1", "id2"]  # no text: all, newest first


# -- the command -----------------------------------------------------------------
def ask(*words: str) -> str:
    """A new conversation (outside the test's terminal session); its id."""
    return json.loads(ok("ask", "--json", *words).stdout)["conversation"]


def followed_up_after_resume(fake) -> str:
    """The first question of the conversation a follow-up in SESSION went to."""
    ok("ask", "-c", "and then?", env=SESSION)
    return fake.requests[-1]["messages"][0]["content"]


@pytest.fixture
def three(fake):
    """Three conversations, oldest first."""
    return [ask("explain git rebase"), ask("reverse a list in python"), ask("borrow checker in rust")]


def spawn(*args: str, command: str | None = None, cwd=None) -> pexpect.spawn:
    """conv resume ARGS on a pseudo-terminal of 24×100, in SESSION; or a shell
    ``command`` there (which may run conv)."""
    program, argv = ("sh", ["-c", command]) if command else (sys.executable, ["-m", "conv", "resume", *args])
    return pexpect.spawn(program, argv, env=conv_env(SESSION), cwd=cwd, dimensions=(24, 100), encoding="utf-8",
                         timeout=30)


def finished(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def test_typing_a_fuzzy_query_and_enter_resumes_that_conversation(three, fake):
    child = spawn()
    child.expect("3/3")
    child.send("revpy")  # r-e-v … p-y: only "reverse a list in python"
    child.expect("1/3")
    child.send("\r")
    child.expect("this terminal now continues")
    child.expect('follow up with: conv ask -c "…"')
    assert finished(child) == 0
    assert followed_up_after_resume(fake) == "reverse a list in python"


def test_arrow_keys_and_ctrl_n_ctrl_p_move_the_selection(three, fake):
    child = spawn()
    child.expect("3/3")  # newest first: rust, python, rebase
    child.send(DOWN + DOWN + UP)
    child.send("\r")
    assert finished(child) == 0
    assert followed_up_after_resume(fake) == "reverse a list in python"
    child = spawn()
    child.expect("3/3")
    child.send("\x0e\x0e\x0e\x10\x0e")  # python (now newest), rust, rebase: Ctrl-N past the end stays
    child.send("\r")
    assert finished(child) == 0
    assert followed_up_after_resume(fake) == "explain git rebase"


def test_text_opens_the_picker_already_typed_and_backspace_widens_it(three, fake):
    child = spawn("rxyz")  # matches nothing: the picker opens on it
    child.expect("0/3")
    child.send("\x7f\x7f\x7f")  # back to "r": all three hold an r
    child.expect("3/3")
    child.send("ust\r")
    assert finished(child) == 0
    assert followed_up_after_resume(fake) == "borrow checker in rust"


@pytest.mark.parametrize("key, code", [(ESC, 1), ("\x07", 1), ("\x03", 130), ("SIGTERM", 143)])
def test_esc_ctrl_g_ctrl_c_and_sigterm_change_nothing_and_restore_the_terminal(three, fake, key, code, tmp_path):
    ok("use", three[0], env=SESSION)  # a whole id: resolved from the store before the index catches up
    conv = shlex.quote(sys.executable) + " -m conv resume"
    child = spawn(command=f"stty -g > before; {conv}; echo EXIT=$?; stty -g > after; cmp -s before after && echo SAME",
                  cwd=tmp_path)
    child.expect("3/3")
    child.send("py")
    child.expect("1/3")
    if key == "SIGTERM":
        (conv_pid,) = open(f"/proc/{child.pid}/task/{child.pid}/children").read().split()
        os.kill(int(conv_pid), signal.SIGTERM)
    else:
        child.send(key)
    child.expect(f"EXIT={code}")
    child.expect("SAME")  # echo, line editing and signals are back as they were
    assert finished(child) == 0
    assert followed_up_after_resume(fake) == "explain git rebase"


def test_a_title_cannot_drive_the_terminal(fake):
    fake.set(reply="copy \x1b]52;c;ZXZpbA==\x07this clipboard")
    ask("\x1b]0;pwned\x07evil \x1b[2Jtitle\x1b[31m")
    child = spawn()
    child.logfile_read = seen = io.StringIO()
    child.expect("1/1")
    child.send("clipboard")  # matched in the answer: a snippet of it is shown too
    child.expect("1/1")
    child.send(ESC)
    assert finished(child) == 1
    out = seen.getvalue()
    assert "evil title" in out and "this " in out  # the text shows, its sequences went whole
    for raw in ("\x1b]", "\x07", "pwned", "ZXZpbA", "\x1b[2J", "\x1b[31m"):
        assert raw not in out


def test_text_naming_one_conversation_needs_no_terminal(three, fake):
    done = ok("resume", "rebase", env=SESSION)
    assert done.stdout == b""
    note = done.stderr.decode()
    assert "explain git rebase" in note and three[0][:6] in note and 'conv ask -c "…"' in note
    assert followed_up_after_resume(fake) == "explain git rebase"
    ok("resume", "python", "rvs", env=SESSION)  # every word, fuzzy where needed
    assert followed_up_after_resume(fake) == "reverse a list in python"


def test_a_title_holding_the_words_wins_over_text_that_mentions_them(fake):
    fake.set(reply="Use git rebase -i.")
    ask("squash my commits")
    fake.set(reply="Sure.")
    ask("rebase onto main")
    ok("resume", "rebase", env=SESSION)
    assert followed_up_after_resume(fake) == "rebase onto main"


def test_without_a_terminal_ambiguous_text_names_the_candidates(fake):
    ids = [ask("rebase notes one"), ask("rebase notes two"), ask("python")]
    line = fails("resume", "rebase", code=1, env=SESSION)
    assert "'rebase' is in 2 conversations" in line and all(i[:6] in line for i in ids[:2])
    assert ids[2][:6] not in line
    assert "conv use REF" in line
    line = fails("resume", code=1, env=SESSION)  # no text, no terminal: the latest
    assert "no terminal" in line and all(i[:6] in line for i in ids)
    assert "no conversation matches 'zzz'" in fails("resume", "zzz", code=1, env=SESSION)
    ok("delete", ids[1])  # deleted conversations are not offered
    ok("resume", "rebase", env=SESSION)
    assert followed_up_after_resume(fake) == "rebase notes one"


def imported(tmp_path, count: int, said: dict[int, str] | None = None) -> None:
    """``count`` conversations "chat 0" … imported from a ChatGPT export, oldest first, each of two exchanges;
    ``said``: what the first answer of some of them says (by number)."""
    from test_importers import node

    chats = [{"conversation_id": f"c{n}", "title": f"chat {n}", "create_time": 1000.0 + n, "current_node": "d",
              "mapping": {"r": node("r", None, ["a"]), "a": node("a", "r", ["b"], "user", "hello", 1000.0 + n),
                          "b": node("b", "a", ["c"], "assistant", (said or {}).get(n, "nothing"), 1000.5 + n),
                          "c": node("c", "b", ["d"], "user", "and then?", 1000.6 + n),
                          "d": node("d", "c", [], "assistant", "fine", 1000.7 + n)}} for n in range(count)]
    (tmp_path / "conversations.json").write_text(json.dumps(chats))
    ok("import", "--from", "chatgpt", str(tmp_path / "conversations.json"))


def test_text_is_looked_for_in_every_turn_of_every_conversation_and_counted_by_what_holds_it(fake, tmp_path):
    """Off a terminal TEXT was matched against the newest 300 conversations' first and last turns only, and
    fuzzily: "'rebase' matches 23 conversations" where two hold the word."""
    imported(tmp_path, 320, {0: "the zanzibar cluster"})
    done = ok("resume", "zanzibar", env=SESSION)  # the oldest, its middle turn
    assert '"chat 0"' in done.stderr.decode()
    for title in ("rebase notes", "the rebase plan", "rubber base", "reborn baseline", "re: base"):
        ask(title)  # two hold the word; three only resemble it (r-e-b-a-s-e in order)
    line = fails("resume", "rebase", code=1, env=SESSION)
    assert "'rebase' is in 2 conversations" in line and "3 more only resemble it" in line, line
    ask("resolve a merge conflict in git")  # holds "git", not "rebase": no conversation holding the words
    assert "'git rebase' is in 2" not in fails("resume", "git rebase", code=1, env=SESSION)
    for title in ("Topic 350", "Topic 250"):
        ask(title)
    line = fails("resume", "topic 50", code=1, env=SESSION)  # "50" in "350" is no word: they only resemble it
    assert "'topic 50' resembles 2 conversations" in line, line


def test_the_pickers_rows_mask_a_key_in_the_text_as_in_the_title(fake):
    from conv.services.resume import candidates
    from conv.services.workspace import Workspace
    from conv.terminal.sanitize import clean

    key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-AAAAAA"
    fake.reply = f"it fails with {key} in the header"
    ok("ask", "why does the auth fail?", env={"CONV_ALLOW_SECRETS": "1"})
    (found,) = candidates(Workspace(notice=lambda line: None), clean)
    assert "AbCdEfGh" not in found.first + found.last + found.title + found.summary, found


def test_an_empty_store_says_to_ask_first(fake):
    assert 'Ask first: conv ask "…"' in fails("resume", code=1, env=SESSION)


def test_the_picker_shows_status_and_summary_and_matches_the_summary(three, fake):
    rebase, python, rust = three
    ok("status", rebase, "paused")
    ok("summary", rust, "Chose lifetimes over cloning.")
    child = spawn()
    child.expect("3/3")
    child.expect("Chose lifetimes over cloning")  # newest first: rust (its summary), python, rebase
    child.expect(r"\[paused\]")
    child.send("lifetimes")  # a word only the summary holds
    child.expect("1/3")
    child.send("\r")
    assert finished(child) == 0
    assert followed_up_after_resume(fake) == "borrow checker in rust"


def test_a_pasted_paragraph_is_searched_once_and_its_newlines_choose_nothing():
    """Found by a new user: a 300-word paste froze the picker for minutes (a search a character, each slower
    than the last), and a newline inside a paste chose a conversation."""
    import pty
    import threading

    from conv.terminal import picker

    found = [candidate("kafka notes", "kafka"), candidate("redis notes", "redis", n=1)]
    searched = []

    def rank(query, among):
        searched.append(query)
        return [Ranked(c, 0, 0, {}) for c in among if query.split(" ")[0] in c.title] if query else \
            [Ranked(c, 0, 0, {}) for c in among]

    main, tty = pty.openpty()
    os.write(main, (" ".join(["redis"] * 300) + "\nkafka").encode())  # one paste, a newline inside
    enter = threading.Timer(0.5, lambda: os.write(main, b"\r"))  # then Enter, pressed alone
    enter.start()
    chosen = picker._Picker(tty, found, "", rank).run()
    enter.join()
    os.close(main)
    os.close(tty)
    assert chosen.title == "redis notes"
    assert len(searched) <= 3 and all(len(q.split(" ")) <= picker.QUERY_WORDS for q in searched), len(searched)


def test_page_keys_home_and_end_move_a_page_or_to_either_end(fake):
    titles = [f"topic {n:02d}" for n in range(12)]
    for title in titles:
        ask(title)  # newest first in the picker: topic 11 … topic 00
    PAGE_DOWN, PAGE_UP, HOME, END = "\x1b[6~", "\x1b[5~", "\x1b[H", "\x1bOF"
    for keys, chosen in ((END, "topic 00"), (END + HOME, "topic 11"), (PAGE_DOWN, "topic 01"),
                         (PAGE_DOWN + PAGE_DOWN, "topic 00"), (END + PAGE_UP, "topic 10"), ("\x1b[4~", "topic 00")):
        child = spawn()
        child.expect("12/12")
        child.send(keys)
        child.send("\r")
        child.expect(r'continues \S+ "(topic \d+)"')
        assert child.match.group(1) == chosen, repr(keys)  # no follow-up: the order stays as it was
        assert finished(child) == 0


def test_rows_say_the_tool_and_the_project(fake, tmp_path):
    from test_importers import node

    (tmp_path / "conversations.json").write_text(json.dumps([{
        "conversation_id": "c1", "title": "imported one", "create_time": 1000.0, "current_node": "b", "mapping": {
            "r": node("r", None, ["a"]), "a": node("a", "r", ["b"], "user", "hello", 1000.0),
            "b": node("b", "a", [], "assistant", "hi", 1001.0)}}]))
    ok("import", "--from", "chatgpt", str(tmp_path / "conversations.json"))
    ask("asked here")
    child = spawn()
    child.expect("2/2")
    child.expect(r"conv · \S+\s+asked here")  # its project's folder
    child.expect(r"chatgpt\S*\s+imported one")
    child.send("\x1b")
    assert finished(child) == 1


def test_the_picker_runs_with_stdout_a_pipe_and_draws_again_when_resized(three, fake):
    """`conv resume | cat` refused the picker though /dev/tty was there; a resize left the rows drawn for the
    old width until the next key."""
    child = spawn(command=f"{shlex.quote(sys.executable)} -m conv resume | cat")
    child.expect("3/3")
    child.setwinsize(24, 40)
    child.expect("3/3", timeout=5)  # drawn again at once, no key pressed
    child.expect("borrow")
    drawn = child.before + child.after
    child.expect([pexpect.TIMEOUT], timeout=0.5)
    drawn += child.before
    rows = [re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r", "", line) for line in drawn.split("\n")]
    assert all(len(row) < 40 for row in rows), rows  # cut to the new width
    child.send("\r")
    assert finished(child) == 0
    assert followed_up_after_resume(fake) == "borrow checker in rust"


def test_the_count_says_how_many_conversations_there_are_not_how_many_are_offered(fake, tmp_path):
    imported(tmp_path, 305)
    child = spawn()
    child.expect("300/305")  # the newest 300 offered; typing searches all 305
    child.send("\x1b")
    assert finished(child) == 1
