"""The fast path parses ``conv ask`` exactly as Typer does, or leaves it to Typer."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from conv.cli.commands import app_for
from conv.cli.run import ask as asking
from conv.cli.run.argv import parse_ask
from conv.cli.spec import OPTIONS

tokens = st.one_of(
    st.sampled_from(sorted(OPTIONS["ask"]) + ["--", "-", "-x", "--bogus", "-cq", "--model=gpt-4o", "--json=1", "-h",
                                              "--cid=", "temperature", "0.2", "seed", "7", "stop", "-o=seed"]),
    st.text(alphabet="abc -=k3f9", min_size=0, max_size=8),
)


def typer_parse(args, monkeypatch):
    seen = []
    monkeypatch.setattr(asking, "run", seen.append)
    result = CliRunner().invoke(app_for(["ask"]), ["ask", *args])  # as conv's main() builds it for ask
    return result, (seen[0] if seen else None)


@settings(max_examples=300, deadline=None)
@given(args=st.lists(tokens, max_size=7))
def test_whatever_the_fast_path_accepts_typer_reads_the_same(args):
    fast = parse_ask(args)
    if fast is None:
        return
    with pytest.MonkeyPatch.context() as monkeypatch:
        result, slow = typer_parse(args, monkeypatch)
    assert result.exit_code == 0, result.output
    assert slow == fast


@pytest.mark.parametrize(
    "args",
    [
        ["-c", "what about interactive mode?"],
        ["--cid", "k3f9x2", "-m", "gpt-4o", "--no-stream", "and", "in", "Python?"],
        ["-q", "--json", "--no-save", "-s", "be brief", "--", "-x", "is", "a", "flag?"],
        ["--model=gpt-4o", "--new", "hi"],
        ["-n", "-m", "gpt-4o", "a", "new", "one"],
        ["-o", "temperature", "0.2", "--option", "stop", "###", "-o", "stop", "END", "name", "a", "colour"],
    ],
)
def test_the_common_forms_take_the_fast_path(args, monkeypatch):
    fast = parse_ask(args)
    assert fast is not None
    assert typer_parse(args, monkeypatch)[1] == fast


@pytest.mark.parametrize("args", [["-h"], ["-cq", "x"], ["-m"], ["--json=yes"], ["--frobnicate"]])
def test_everything_else_is_left_to_typer(args):
    assert parse_ask(args) is None


sync_tokens = st.lists(st.sampled_from(["origin", "backup", "--json", "-x", "--help", "a b", "--", "-"]), max_size=3)


@settings(max_examples=150, deadline=None)
@given(command=st.sampled_from(["sync", "pull", "push"]), args=sync_tokens)
def test_sync_pull_push_parse_as_typer_does(command, args):
    from conv.cli import sync as sync_cli
    from conv.cli.run.argv import parse_sync

    fast = parse_sync(args)
    if fast is None:
        return
    seen = []
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(sync_cli, "run", lambda name, pull, send, json_out: seen.append((name, json_out)))
        result = CliRunner().invoke(app_for([command]), [command, *args])
    assert result.exit_code == 0, result.output
    assert seen == [fast]


command_tokens = st.one_of(
    st.sampled_from(["-m", "--model", "--shell", "--json", "-q", "--quiet", "--", "-", "-h", "--shell=fish", "-qm"]),
    st.text(alphabet="abc -=fish", min_size=0, max_size=8),
)


@settings(max_examples=200, deadline=None)
@given(args=st.lists(command_tokens, max_size=6))
def test_conv_cmd_parses_as_typer_does(args):
    from conv.cli.run import command as commanding
    from conv.cli.run.argv import parse_command

    fast = parse_command(args)
    if fast is not None:
        assert typer_ran(commanding, "cmd", args) == fast


def typer_ran(runner, command: str, args: list[str]):
    """What Typer hands ``runner.run`` for ``conv COMMAND ARGS`` (it must accept them)."""
    seen = []
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(runner, "run", seen.append)
        result = CliRunner().invoke(app_for([command]), [command, *args])
    assert result.exit_code == 0, result.output
    return seen[0]


search_tokens = st.one_of(
    st.sampled_from(sorted(OPTIONS["search"]) + ["--", "-", "-h", "-n", "0", "5", "-5", "07", "x", "--limit=3",
                                                 "--source=codex", '"a b"', "--bogus"]),
    st.text(alphabet="ab -=05", min_size=0, max_size=6),
)


@settings(max_examples=300, deadline=None)
@given(args=st.lists(search_tokens, max_size=7))
def test_conv_search_parses_as_typer_does(args):
    from conv.cli.run import search as searching
    from conv.cli.run.argv import parse_search

    fast = parse_search(args)
    if fast is None:
        return
    given = {k: v for k, v in typer_ran(searching, "search", args).items() if v not in (None, False)}
    assert {k: v for k, v in given.items() if (k, v) != ("limit", 20)} == \
        {k: v for k, v in fast.items() if (k, v) != ("limit", 20)}
