"""A terminal without the shell plugin (no CONV_SESSION) has a current
conversation too: use, resume, fork, clear and ask all change it, and -c
expires after session.expiry as in a plugin's terminal (issue 13, defects 3
and 6)."""

import json
import re
import time

from conftest import ok


def current_id() -> str:
    return json.loads(ok("show", "--json").stdout)["id"]


def asked(*args: str) -> str:
    return json.loads(ok("ask", "--json", *args).stdout)["conversation"]


def test_use_and_resume_work_without_the_plugin_and_follow_ups_go_there(fake):
    older = asked("explain git rebase")
    newer = asked("--new", "reverse a list in python")
    assert "this terminal now continues" in ok("use", older).stderr.decode()
    assert current_id() == older
    ok("ask", "-c", "and interactive mode?")
    assert [m["content"] for m in fake.requests[-1]["messages"]][0] == "explain git rebase"
    ok("resume", "python")  # the text names one: no picker needed
    assert current_id() == newer
    ok("ask", "-c", "and in place?")
    assert [m["content"] for m in fake.requests[-1]["messages"]][0] == "reverse a list in python"
    forked = json.loads(ok("fork", older, "--json").stdout)["id"]
    assert current_id() == forked
    ok("clear")
    ok("ask", "-c", "a fresh start")
    assert [m["content"] for m in fake.requests[-1]["messages"]] == ["a fresh start"]


def test_c_expires_without_the_plugin(fake):
    first = asked("explain git rebase")
    ok("config", "set", "session.expiry", "1s")  # the asks after `conv use` come well within 1 s
    time.sleep(1.2)
    done = ok("ask", "-c", "and interactive mode?")
    said = done.stderr.decode()
    assert re.search(rf"{first[:6]} has been idle for \d+ seconds?; starting a new conversation", said), said
    assert [m["content"] for m in fake.requests[-1]["messages"]] == ["and interactive mode?"]
    ok("use", first)  # chosen again: fresh
    ok("ask", "-c", "right away")
    assert [m["content"] for m in fake.requests[-1]["messages"]][0] == "explain git rebase"
