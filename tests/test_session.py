"""A terminal's own conversation (CONV_SESSION), its expiry, and conv clear."""

import json
import time

from conftest import run_conv


def ask(*args, session=None, **kw):
    env = {"CONV_SESSION": session} if session else None
    done = run_conv("ask", "--json", *args, env=env, **kw)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)["conversation"], done.stderr.decode()


def test_two_terminals_hold_two_conversations(fake, conv_home):
    a, _ = ask("topic a", session="term-a")
    b, _ = ask("topic b", session="term-b")
    assert ask("-c", "more a", session="term-a")[0] == a
    assert ask("-c", "more b", session="term-b")[0] == b
    state = (conv_home / "state" / "sessions" / "term-a").read_text().split()
    assert state[0] == a and a.startswith(state[1]) and state[2] == "4"


def test_a_new_terminal_does_not_pick_up_another_terminals_conversation(fake):
    a, _ = ask("topic a", session="term-a")
    c, notice = ask("-c", "fresh?", session="term-c")
    assert c != a and "starting a new one" in notice


def test_an_idle_session_starts_fresh_and_says_so(fake, conv_home):
    a, _ = ask("old topic", session="term-a")
    state = conv_home / "state" / "sessions" / "term-a"
    conv_id, short, turns, used, expires = state.read_text().split()
    assert int(expires) - int(used) == 24 * 3600  # the default expiry, for the prompt segment
    then = int(time.time()) - 25 * 3600
    state.write_text(f"{conv_id} {short} {turns} {then} {then + 24 * 3600}\n")
    b, notice = ask("-c", "next", session="term-a")
    assert b != a and "idle for 1 day" in notice and f"--cid {short}" in notice
    assert ask("-c", "and again", session="term-a")[0] == b


def test_expiry_is_configurable(fake, conv_home):
    assert run_conv("config", "set", "session.expiry", "1s").returncode == 0
    a, _ = ask("topic", session="t")
    time.sleep(1.2)
    assert ask("-c", "later", session="t")[0] != a


def test_clear_forgets_the_terminals_conversation(fake):
    a, _ = ask("topic", session="t")
    assert run_conv("clear", env={"CONV_SESSION": "t"}).returncode == 0
    assert ask("-c", "after", session="t")[0] != a


def test_a_hostile_session_name_is_refused(fake):
    done = run_conv("ask", "-c", "hi", env={"CONV_SESSION": "../../etc/x"})
    assert done.returncode == 2 and "CONV_SESSION" in done.stderr.decode()
