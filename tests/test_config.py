"""conv config: declared keys only, values checked (when set and when the
file is read, before an ask stores anything), comments survive."""

import json

import pytest
from conftest import fails, git, ok, run_conv


def objects(store) -> int:
    return len(git(store, "cat-file", "--batch-all-objects", "--batch-check").splitlines())


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


# ---- bad settings: one line naming the key and the file, before anything is stored ----

BAD_FILES = {  # config.yaml as written by hand -> what the line must name
    "nan": ("timeout:\n  connect: .nan\n", "timeout.connect in {file} cannot be .nan: use a number of seconds above 0"),
    "inf": ("timeout:\n  connect: .inf\n", "timeout.connect in {file} cannot be .inf: use a number of seconds above 0"),
    "-inf": ("timeout:\n  read: -.inf\n", "timeout.read in {file} cannot be -.inf: use a number of seconds above 0"),
    "1e999": ("timeout:\n  connect: 1e999\n", "timeout.connect in {file} cannot be "),
    "-0": ("timeout:\n  connect: -0\n", "timeout.connect in {file} cannot be 0: use a number of seconds above 0"),
    "many": ("context:\n  max_messages: many\n", "context.max_messages in {file} cannot be 'many': use a whole number"),
    "fraction": ("context:\n  max_messages: 2.5\n", "context.max_messages in {file} cannot be 2.5: use a whole number"),
    "yes/no": ("context:\n  max_tokens: true\n", "context.max_tokens in {file} cannot be true: use a whole number"),
    "list": ("model: [gpt-4o, gpt-4o-mini]\n", "model in {file} cannot be a list: use text"),
    "mapping": ("model:\n  name: gpt-4o\n", "model in {file} cannot be a mapping: use text"),
    "two lines": ('model: "gpt-4o\\nrm -rf"\n', "model in {file} cannot be 'gpt-4o\\nrm -rf': use one line of text"),
    "surrogate": ('model: "\\udcff"\n', "model in {file} cannot be '\\udcff': use UTF-8 text"),
    "expiry": ("session:\n  expiry: soon\n",
               "session.expiry in {file} cannot be 'soon': use a number with s, m, h, d or w"),
    "huge expiry": (f"session:\n  expiry: {'9' * 400}d\n", "session.expiry in {file} cannot be '999"),
    "temperature": ("agents:\n  coder:\n    temperature: .nan\n", "agents.coder.temperature in {file} cannot be .nan"),
    "price": ("prices:\n  gpt-4.1:\n    input: -1\n",
              "prices.gpt-4.1.input in {file} cannot be -1: use a price from 0 to 10000000"),
    "agent name": ("agents:\n  Coder:\n    system: hi\n", "bad agent name 'Coder' in {file}"),
    "dotted key": ("timeout.connect: 5\n", "timeout.connect in {file} is written as one dotted key, not nested"),
    "value for a section": ("timeout: 30\n", "timeout in {file} must be a mapping of settings, not a single value"),
    "list for a section": ("agents: [coder]\n", "agents in {file} must be a mapping of settings"),
    "not UTF-8": (b"# caf\xe9\nmodel: gpt-4o\n", "{file} is not UTF-8 text (byte 0xe9 at offset 5)"),
    "not YAML": ("model: [gpt-4o\n", "{file} is not valid YAML"),
    "not a mapping": ("- model\n", "{file} must hold a YAML mapping"),
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_a_bad_config_file_stops_an_ask_before_anything_is_stored(fake, store_path, conv_home, case):
    conv_id = json.loads(ok("ask", "--json", "a first question").stdout)["conversation"]
    head, count, sent = git(store_path, "rev-parse", "main"), objects(store_path), len(fake.requests)
    content, says = BAD_FILES[case]
    path = conv_home / "config" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    for args in (["ask", "-c", "a follow-up"], ["ask", "--cid", conv_id, "-m", "openai:gpt-4o", "more"],
                 ["ask", "--new", "-m", "openai:gpt-4o", "a new one"], ["retry", conv_id]):
        line = fails(*args, code=2)
        assert says.format(file=path) in line, (args, line)
    # nothing committed, not even an object; no model called
    assert git(store_path, "rev-parse", "main") == head and objects(store_path) == count
    assert len(fake.requests) == sent


SECONDS = "use a number of seconds above 0 and up to 3600"
BAD_VALUES = [  # (key, value typed, what is allowed)
    ("timeout.connect", "inf", SECONDS), ("timeout.connect", "1e999", SECONDS),
    ("timeout.connect", "nan", SECONDS), ("timeout.connect", "-0", SECONDS),
    ("timeout.read", ".inf", SECONDS), ("hooks.timeout", "0", SECONDS),
    ("timeout.read", "1e308", SECONDS),  # issue 23: accepted, then every ask failed with an OverflowError
    ("session.expiry", "0", "use a duration from 1s to"),  # issue 23: then every follow-up was "idle for 0 s"
    ("local.keep_alive", "30d", "use a duration from 0s to 1w"),
    ("context.max_messages", "many", "use a whole number from 1 to 100,000"),
    ("local.context", "2.5", "use a whole number"),
    ("local.context", "10", "use a whole number from 256 to 1,048,576"),
    ("base_url", "not a url", "use an http:// or https:// URL with a host"),  # issue 23: quoted later as an example
    ("endpoints.bad.base_url", "ftp://x", "use an http:// or https:// URL"),
    ("endpoints.bad.base_url", "https://host:99999/v1", "use an http:// or https:// URL"),
    ("session.expiry", "9" * 400 + "d", "use a number with s, m, h, d or w"),
    ("agents.coder.temperature", "nan", "use a number from 0 to 2"), ("prices.gpt-4.1.input", "inf", "use a price"),
    ("model", "two\nlines", "use one line of text"), ("model", "  ", "use one line of text"),
    ("base_url", "http://x/\x1b[2J", "use one line of text"), ("prices.gpt-4.1.input", "1e9", "use a price from 0"),
]


def test_config_set_refuses_bad_values_and_leaves_the_file_alone(conv_home):
    path = conv_home / "config" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("# mine\ntimeout:\n  connect: 5\n")
    for key, value, allowed in BAD_VALUES:
        line = fails("config", "set", "--", key, value, code=2)
        assert (line.startswith(f"conv: error: {key} cannot be ") and allowed in line
                and f"{path} is unchanged" in line), line
        assert "\x1b" not in line
    line = fails("config", "set", "modle", "x", code=2)
    assert f"unknown config key 'modle' (nothing was written to {path}). Did you mean model?" in line
    assert path.read_text() == "# mine\ntimeout:\n  connect: 5\n"


def test_a_bad_setting_can_be_fixed_with_config_set(fake, conv_home):
    path = conv_home / "config" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("timeout:\n  connect: .nan  # broken by hand\n")
    assert "timeout.connect in" in fails("ask", "q")
    ok("config", "set", "timeout.connect", "5")
    assert "connect: 5" in path.read_text() and "# broken by hand" in path.read_text()
    ok("ask", "q")
    assert len(fake.requests) == 1
    ok("config", "set", "model", "4")  # text keys stay text, even when they look like numbers
    assert "model: '4'" in path.read_text() and ok("config", "get", "model").stdout == b"4\n"


def test_a_key_written_by_mistake_is_left_out_with_a_warning_and_every_command_works(fake, conv_home):
    """Issue 23: a typo added by hand made conv list, show, c and log exit 2
    with one 700-character line listing every key."""
    ok("ask", "first")
    path = conv_home / "config" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("timeout:\n  raed: 5\nprices:\n  gpt-4.1:\n    inptu: 2\nmodle: gpt-4o\n")
    for args in (["list"], ["show"], ["c"], ["log"], ["ask", "-c", "and then?"], ["config", "get"]):
        done = ok(*args)
        warned = done.stderr.decode()
        assert "timeout.raed in " in warned and "(did you mean timeout.read?)" in warned, (args, warned)
        assert "(did you mean prices.gpt-4.1.input?)" in warned and "(did you mean model?)" in warned
        assert len(warned.splitlines()) == 3 and all(len(line) - len(str(path)) < 150 for line in warned.splitlines())
    assert fake.requests[-1]["messages"][-1]["content"] == "and then?"
    for key in ("timeout.raed", "prices.gpt-4.1.inptu", "modle"):
        ok("config", "unset", key)
    assert ok("list").stderr == b"" and path.read_text().strip() in ("", "{}")
    assert b"was not set" in ok("config", "unset", "model").stderr


def test_config_get_shows_aliases_and_unset_puts_a_default_back(conv_home):
    ok("config", "set", "endpoints.groq.base_url", "https://api.groq.com/openai/v1")
    ok("config", "set", "aliases.fast", "groq:llama-3.3-70b")
    ok("config", "set", "timeout.read", "30")
    listed = ok("config", "get").stdout.decode()
    assert "aliases.fast = groq:llama-3.3-70b" in listed and "timeout.read = 30" in listed
    ok("config", "unset", "timeout.read")
    assert ok("config", "get", "timeout.read").stdout.decode().strip() == "120.0"


def test_a_typo_written_dotted_is_said_as_its_nested_twin_and_each_printed_fix_works(conv_home):
    path = conv_home / "config" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    said = {}
    for form in ("sesion:\n  expiry: 8h\n", "sesion.expiry: 8h\n"):
        path.write_text(form)
        said[form] = ok("config", "get", "session.expiry").stderr.decode()
        assert "no such setting (did you mean session.expiry?), left out" in said[form]
    fix = said["sesion.expiry: 8h\n"].split("left out (")[1].split(")")[0]
    assert fix == "conv config unset sesion.expiry"
    ok(*fix.split()[1:])
    assert path.read_text() == "{}\n" and ok("config", "get", "session.expiry").stderr.decode() == ""
    path.write_text("session.expiry: 8h\n")  # a real key, dotted: refused, with a fix that works
    line = fails("config", "get", "session.expiry", code=2)
    fix = line.split("Write it as conv config set does: ")[1]
    assert fix == "conv config unset session.expiry && conv config set session.expiry 8h"
    for command in fix.split(" && "):
        ok(*command.split()[1:])
    assert ok("config", "get", "session.expiry").stdout.decode().strip() == "8h"
