"""orcx's short forms, through the CLI: ``conv c`` (= list), ``-a`` (=
--agent) on list and search, ``conv ask -n`` (= --new), ``conv show -l``
(the conversation updated last) and the AGENT column of ``conv list``."""

import json

from conftest import fails, ok


def listed(*args: str) -> list[dict]:
    return json.loads(ok(*args, "--json").stdout)


def test_c_is_list_and_a_filters_by_agent(fake):
    plain = ok("ask", "a question of no agent's")
    assert plain.returncode == 0
    assert "AGENT" not in ok("list").stdout.decode()  # no conversation has an agent: no column
    ok("config", "set", "agents.coder.system", "You write terse Python.")
    ok("ask", "-a", "coder", "reverse a list")
    assert listed("c") == listed("list") and len(listed("c")) == 2
    [coder] = listed("list", "-a", "coder")
    assert coder["agent"] == "coder" and listed("c", "-a", "coder", "-n", "1") == [coder]
    table = ok("list").stdout.decode().splitlines()
    assert table[0].split()[:5] == ["ID", "TURNS", "UPDATED", "MODEL", "AGENT"]
    assert any(" coder " in line and coder["short"] in line for line in table[1:])
    assert [h["id"] for h in json.loads(ok("search", "reverse", "-a", "coder", "--json").stdout)] == [coder["id"]]


def test_ask_n_starts_a_new_conversation_even_with_c(fake):
    ok("ask", "the first question")
    first = listed("list")[0]["id"]
    ok("ask", "-c", "-n", "not a follow-up")
    ids = [c["id"] for c in listed("list")]
    assert len(ids) == 2 and ids[1] == first
    assert [m["content"] for m in fake.requests[-1]["messages"]] == ["not a follow-up"]


def test_show_l_shows_the_conversation_updated_last(fake):
    term = {"CONV_SESSION": "short-forms"}  # a terminal with the plugin: it has a current conversation
    ok("ask", "older one", env=term)
    older = listed("list")[0]["id"]
    ok("ask", "--new", "newer one", env=term)
    newer = listed("list")[0]["id"]
    ok("use", older, env=term)
    assert json.loads(ok("show", "--json", env=term).stdout)["id"] == older  # the current one
    assert json.loads(ok("show", "-l", "--json", env=term).stdout)["id"] == newer
    assert "newer one" in ok("show", "--latest", env=term).stdout.decode()
    assert fails("show", "-l", older, code=2) == ("conv: error: give a conversation or -l, not both. "
                                                 "e.g. conv show k3f9x2, or conv show -l")


def test_show_l_with_no_conversations_says_how_to_start(store_path):
    assert "there are no conversations yet" in fails("show", "-l")
