"""What conv search finds as a reader reads the text, found tried as a new
user would: no leftover of an escape sequence is a word (conv show hides
them), a word inside a run of Chinese or Japanese is found, ß is ss, and
nothing found exits 1 as grep does, the query never echoed whole."""

import json

from conftest import ok, run_conv


def hits(*words: str) -> list[str]:
    done = run_conv("search", "--json", *words)
    return [hit["id"] for hit in json.loads(done.stdout)] if done.returncode == 0 else []


def test_search_reads_the_words_a_reader_reads(fake):
    fake.set(reply="\x1b[31mred\x1b[0m alert: 我们决定使用数据库连接池。Die Straße ist gesperrt.")
    conv = json.loads(ok("ask", "--json", "what happened?").stdout)["conversation"]
    assert hits("red", "alert") == [conv]
    assert hits("31mred") == []  # what the escape sequence left is no word
    assert hits("数据库") == [conv] and hits("连接池") == [conv]  # inside a run of characters
    assert hits("数库") == []  # the characters side by side, as asked
    assert hits("strasse") == [conv] and hits("Straße") == [conv]


def test_nothing_found_exits_1_and_a_long_query_is_not_echoed_whole(fake):
    fake.set(reply="Rebase replays your commits.")
    ok("ask", "what is a rebase?")
    done = run_conv("search", "zanzibar")
    assert done.returncode == 1 and done.stderr.decode() == "conv: nothing matches 'zanzibar'\n"
    done = run_conv("search", "q" * 100_000)
    assert done.returncode == 1 and len(done.stderr) < 400 and "…" in done.stderr.decode()
    assert run_conv("search", "rebase").returncode == 0


def test_show_raw_keeps_to_the_turns_asked(fake):
    fake.set(reply="first answer")
    conv = json.loads(ok("ask", "--json", "first question").stdout)["conversation"]
    fake.set(reply="second answer")
    ok("ask", "-c", "second question")
    raw = ok("show", conv, "--raw", "--turn", "3").stdout.decode()
    assert raw.startswith("==> ") and "second question" in raw and "first question" not in raw.split("==>", 2)[2]
    assert "first answer" not in ok("show", conv, "--raw", "--last", "1").stdout.decode()
    assert "second answer" in ok("show", conv, "--raw", "--last", "1").stdout.decode()


def test_an_agents_own_search_of_conv_is_no_hit_for_its_words(fake, tmp_path, monkeypatch):
    from claude_sessions import write_session

    fake.set(reply="We decided: webhook retries back off exponentially, five at most.")
    decided = json.loads(ok("ask", "--json", "how should webhooks be retried?").stdout)["conversation"]
    home, project = tmp_path / "user", tmp_path / "proj"
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    session = write_session(home, project, "a1000000-0000-4000-8000-000000000001", "2030-02-01T10:00",
                            [{"file": "x.py", "content": "x = 1\n"}])
    records = [json.loads(line) for line in session.read_text().splitlines()]
    records[1]["message"]["content"] = [{"type": "tool_use", "id": "toolu_c", "name": "mcp__conv__search",
                                         "input": {"query": "webhook retries"}}]
    session.write_text("".join(json.dumps(r) + "\n" for r in records))
    ok("import", "--from", "claude-code")
    assert hits("webhook", "retries") == [decided]  # the agent's session asked conv; it said nothing of them
