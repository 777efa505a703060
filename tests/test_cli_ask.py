"""conv ask / list / show / clear through the real CLI against the loopback fake."""

import json

from conftest import fails, git, ok, run_conv

from conv.format.ids import conversation_path


def test_ask_then_follow_up_sends_the_whole_conversation(fake, store_path):
    fake.set(reply="Rebase replays commits.")
    first = json.loads(ok("ask", "--json", "explain git rebase").stdout)
    fake.set(reply="Use git rebase -i.")
    ok("ask", "-c", "what about interactive mode?")
    sent = fake.requests[-1]["messages"]
    assert [(m["role"], m["content"]) for m in sent] == [
        ("user", "explain git rebase"),
        ("assistant", "Rebase replays commits."),
        ("user", "what about interactive mode?"),
    ]
    files = git(store_path, "ls-tree", "-r", "--name-only", "HEAD").split()
    conv_dir = conversation_path(first['conversation'])
    assert f"{conv_dir}/conversation.md" in files
    assert sum(f.startswith(conv_dir) for f in files) == 5  # conversation.md + 4 turns


def test_the_real_git_cli_accepts_the_store(fake, store_path, tmp_path):
    for n in range(3):
        ok("ask", f"question {n}")
        ok("ask", "-c", f"follow-up {n}")
    fsck = git(store_path, "fsck", "--strict")
    assert "error" not in fsck and "missing" not in fsck
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(store_path), str(clone))
    turns = sorted(clone.glob("conversations/*/*/*/*-user.md"), key=lambda p: p.name)
    assert len(turns) == 6
    assert (clone / "README.md").read_text().startswith("# conv store")
    text = turns[0].read_text()
    assert text.startswith("---\nrole: user\n") and text.endswith("\n---\nquestion 0\n")
    log = git(store_path, "log", "--format=%s").splitlines()
    assert log[-1] == "conv: create store"
    assert sum(line.endswith(": ask") for line in log) == 6
    assert any(line.endswith(f"answer ({'gpt-4o-mini'}, 3 tokens)") for line in log)


def test_list_show_and_clear(fake):
    fake.set(reply="Answer with **bold**.")
    conv_id = json.loads(ok("ask", "--json", "first topic").stdout)["conversation"]
    ok("ask", "second topic")
    listed = json.loads(ok("list", "--json").stdout)
    assert [c["title"] for c in listed] == ["second topic", "first topic"]
    assert listed[0]["current"] and listed[1]["turns"] == 2
    plain = ok("list").stdout.decode()
    assert "second topic" in plain and "\x1b" not in plain
    shown = ok("show", conv_id[:6]).stdout.decode()
    assert "1. user" in shown and "first topic" in shown and "Answer with **bold**." in shown
    raw = ok("show", conv_id, "--raw").stdout.decode()
    assert f"==> {conversation_path(conv_id)}/conversation.md <==" in raw
    ok("clear")
    ok("ask", "-c", "after clear")
    assert len(json.loads(ok("list", "--json").stdout)) == 3  # -c after clear started a new one


def test_model_output_never_reaches_the_terminal_with_escapes(fake, store_path):
    evil = "hi\x1b]0;pwned\x07 \x1b[2Jthere\x1b]52;c;ZXZpbA==\x07\r\x00!"
    fake.set(reply=evil)
    out = ok("ask", "say hi").stdout.decode()
    assert out == "hi there!\n"
    shown = ok("show").stdout.decode()
    assert "\x1b" not in shown and "\x07" not in shown
    stored = git(store_path, "grep", "-a", "-h", "pwned", "HEAD", "--", "conversations")
    assert "\x1b]0;pwned" in stored  # the store keeps every byte the model sent


def test_piped_stdin_joins_the_question(fake):
    fake.set(reply="ECHO")
    out = ok("ask", "review this", input="diff --git a b\n+line\n").stdout.decode()
    assert out == "review this\n\ndiff --git a b\n+line\n"


def test_dash_c_with_a_ref_picks_that_conversation_and_prose_stays_prose(fake):
    a = json.loads(ok("ask", "--json", "topic a").stdout)["conversation"]
    ok("ask", "topic b")
    ok("ask", "-c", a[:6], "more on a")
    assert fake.requests[-1]["messages"][0]["content"] == "topic a"
    ok("ask", "-c", "street", "view")  # words, not a ref: the latest conversation (a)
    assert fake.requests[-1]["messages"][0]["content"] == "topic a"
    assert fake.requests[-1]["messages"][-1]["content"] == "street view"


def test_system_prompt_is_kept_and_sent_first(fake):
    ok("ask", "-s", "Answer in French.", "hello")
    ok("ask", "-c", "and goodbye?")
    assert fake.requests[-1]["messages"][0] == {"role": "system", "content": "Answer in French."}


def test_no_save_leaves_the_store_alone(fake, store_path):
    ok("ask", "kept")
    before = git(store_path, "rev-parse", "HEAD")
    ok("ask", "-c", "--no-save", "not kept")
    assert git(store_path, "rev-parse", "HEAD") == before
    assert fake.requests[-1]["messages"][0]["content"] == "kept"


def test_without_any_model_set_up_conv_says_how_and_stores_nothing(conv_home):
    # no key, no Ollama (conftest), and the local model's file gone (the hint for a missing
    # runtime is test_install_hint's, for a file never pulled test_local_host's)
    ok("config", "set", "local.model", str(conv_home / "missing.gguf"))
    done = run_conv("ask", "hello")
    assert done.returncode == 3
    err = done.stderr.decode()
    assert f"The offline one: {conv_home / 'missing.gguf'} does not exist (local.model)" in err
    assert "OPENAI_API_KEY" in err and "conv models" in err
    assert not (conv_home / "store.git").exists()
    listed = run_conv("list")
    assert listed.returncode == 0 and listed.stdout == b"" and b"conv ask" in listed.stderr


def test_an_id_like_word_after_c_that_names_none_is_said_and_several_are_refused(fake, store_path):
    """Issue 13, defect 2: a typo no longer silently joins the question."""
    first = json.loads(ok("ask", "--json", "topic a").stdout)["conversation"]
    done = ok("ask", "-c", "k3f9x2", "what", "next")
    assert "'k3f9x2' names no conversation: it is sent as part of the question" in done.stderr.decode()
    assert fake.requests[-1]["messages"][0]["content"] == "topic a"
    assert fake.requests[-1]["messages"][-1]["content"] == "k3f9x2 what next"

    ok("config", "set", "agents.coder.system", "Be terse.")
    made: dict[str, list[str]] = {}
    while not any(len(v) > 1 for v in made.values()):  # agent ids: coder-<token>; 32 first letters
        conv = json.loads(ok("ask", "-a", "coder", "--json", "a coder question").stdout)["conversation"]
        made.setdefault(conv[:7], []).append(conv)
    prefix, both = next((p, v) for p, v in made.items() if len(v) > 1)
    head = git(store_path, "rev-parse", "HEAD")
    line = fails("ask", "-c", prefix, "which one?", code=1)
    assert f"'{prefix}' is ambiguous" in line and all(c in line for c in both)
    assert git(store_path, "rev-parse", "HEAD") == head  # nothing stored
    assert first not in line


def test_a_retry_asks_with_a_fresh_seed_and_an_ask_with_none(fake):
    ok("ask", "explain rebase")
    assert "seed" not in fake.requests[-1]
    seeds = []
    for _ in range(2):
        ok("retry")
        seeds.append(fake.requests[-1]["seed"])
    assert all(isinstance(s, int) for s in seeds) and seeds[0] != seeds[1]
