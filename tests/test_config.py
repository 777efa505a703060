"""conv config: declared keys only, values checked, comments survive."""

from conftest import run_conv


def test_set_keeps_comments_and_get_reads_back(conv_home):
    path = conv_home / "config" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("# my settings\nmodel: gpt-4o  # the good one\n")
    assert run_conv("config", "set", "session.expiry", "8h").returncode == 0
    assert run_conv("config", "set", "context.max_messages", "6").returncode == 0
    text = path.read_text()
    assert "# my settings" in text and "# the good one" in text
    assert "session:\n  expiry: 8h" in text and "max_messages: 6" in text
    assert run_conv("config", "get", "session.expiry").stdout.decode() == "8h\n"
    assert run_conv("config", "path").stdout.decode().strip() == str(path)
    listing = run_conv("config", "get").stdout.decode()
    assert "timeout.read = 120.0 (default)" in listing


def test_unknown_keys_and_bad_values_are_refused(conv_home):
    done = run_conv("config", "set", "modle", "x")
    assert done.returncode == 2 and "unknown config key 'modle'" in done.stderr.decode()
    done = run_conv("config", "set", "session.expiry", "soon")
    assert done.returncode == 2 and "e.g. 24h" in done.stderr.decode()
    assert not (conv_home / "config" / "config.yaml").exists()


def test_context_limit_applies_to_what_is_sent(fake):
    for n in range(4):
        assert run_conv("ask", *(["-c"] if n else []), f"q{n}").returncode == 0
    run_conv("config", "set", "context.max_messages", "2")
    run_conv("ask", "-c", "last")
    # over the budget: the older turns go as a summary (one request), then only the question
    summary, answer = fake.requests[-2:]
    assert "q0" in summary["messages"][-1]["content"] and "q3" in summary["messages"][-1]["content"]
    sent = answer["messages"]
    assert [m["role"] for m in sent] == ["system", "user"] and sent[-1]["content"] == "last"
    assert sent[0]["content"].startswith("Summary of the earlier part of this conversation:")
