"""Tab completion from ``conv init SHELL`` (issue 14, part 4): the
candidates conv gives (``conv __complete``), its tables held to Typer's, and
real bash, fish and zsh completing in tmux."""

import json

import pytest
import typer
from conftest import ok
from shells import Tmux, missing_tools

from conv.cli.commands import app
from conv.cli.spec import GROUPS, OPTIONS, PAIR, SWITCH, VALUE

HOSTILE_TITLE = "rebase \x1b[31mnotes\x1b]52;c;aGk=\x07 and\nmore"


def typer_tables():
    """Each command's options as Typer declares them (spelling -> (parameter, values)), and the groups."""
    root = typer.main.get_command(app)
    options, groups = {}, {}
    for name, command in root.commands.items():
        own = {o: (p.name, SWITCH if p.is_flag else {1: VALUE, 2: PAIR}[p.nargs])
               for p in command.params for o in [*getattr(p, "opts", []), *getattr(p, "secondary_opts", [])]
               if o.startswith("-")}
        if getattr(command, "commands", None):
            groups[name] = tuple(command.commands)
            if not own:
                continue  # a group with options of its own (conv models --json) is in both tables
        options[name] = own
    return options, groups


def test_the_table_is_typers():
    options, groups = typer_tables()
    assert OPTIONS == options
    assert GROUPS == groups


def completed(*words: str) -> list[list[str]]:
    return [line.split("\t") for line in ok("__complete", *words).stdout.decode().splitlines()]


@pytest.fixture
def two(fake):
    first = json.loads(ok("ask", "--json", "explain git rebase").stdout)["conversation"]
    second = json.loads(ok("ask", "--new", "--json", "reverse a list").stdout)["conversation"]
    ok("title", second, HOSTILE_TITLE.replace("\n", " "))
    return first, second


def test_candidates_commands_options_conversations_models(two):
    first, second = two
    assert ["show"] in completed("sh") and ["search"] not in completed("sh")
    assert completed("config", "") == [["get"], ["set"], ["unset"], ["path"]]
    assert completed("show", "--l") == [["--last"], ["--latest"]]
    found = completed("show", "")
    assert [row[0] for row in found] == [second[:6], first[:6]]  # newest first, short ids
    assert found[1][1] == "explain git rebase"
    assert "\x1b" not in found[0][1] and "\x07" not in found[0][1] and found[0][1].startswith("rebase")
    assert completed("show", first[:3]) == [[first[:6], "explain git rebase"]]
    assert completed("ask", "-c", "")[0][0] == second[:6]
    ok("config", "set", "endpoints.groq.base_url", "http://127.0.0.1:9/v1")
    ok("config", "set", "aliases.fast", "groq:llama-3.3-70b")
    assert ["fast"] in completed("ask", "-m", "") and ["local"] in completed("ask", "-m", "")
    assert completed("connect", "--remove", "cl") == completed("connect", "cl") == [
        ["claude-code", "Claude Code"], ["cline", "Cline"]]  # its tool, after a switch too


@pytest.fixture
def tmux(tmp_path):
    with Tmux(tmp_path) as server:
        yield server


def shell(tmux, kind, conv_home, fake, after=""):
    if missing_tools(kind):
        pytest.fail(f"{kind} is missing: tests/run installs it")
    sh = tmux.shell(kind, {"CONV_HOME": str(conv_home), "OPENAI_BASE_URL": fake.url}, rc_after=after)
    sh.wait_prompt(timeout=30)
    return sh


def test_bash_completes_commands_and_conversations(two, tmux, conv_home, fake):
    first, second = two
    sh = shell(tmux, "bash", conv_home, fake)
    sh.type("conv sho")
    sh.key("Tab")
    sh.wait_text(r"conv show $", timeout=30)
    # Two ids that share a first letter (1 in 36): the first Tab inserts it, and
    # readline lists only at the second Tab after one that changed nothing.
    sh.key("Tab", "Tab", "Tab")
    sh.wait_text(first[:6], timeout=30)
    assert second[:6] in sh.screen()


def test_bash_completes_a_model_with_a_colon(tmux, conv_home, fake):
    """Issue 23: bash splits words at ':' (COMP_WORDBREAKS), and -m loc:m<Tab> listed files."""
    ok("config", "set", "endpoints.groq.base_url", "http://127.0.0.1:9/v1")
    ok("config", "set", "endpoints.groq.models", "llama-3.3-70b-versatile")
    sh = shell(tmux, "bash", conv_home, fake)
    sh.type("conv ask -m groq:lla")
    sh.key("Tab")
    sh.wait_text(r"conv ask -m groq:llama-3\.3-70b-versatile ", timeout=30)


def test_fish_completes_conversations_with_their_titles(two, tmux, conv_home, fake):
    first, _ = two
    sh = shell(tmux, "fish", conv_home, fake)
    sh.type("conv show ")
    sh.key("Tab")
    sh.wait_text(rf"{first[:6]}\s+\(explain git rebase\)", timeout=30)


def test_zsh_registers_its_completer(tmux, conv_home, fake):
    sh = shell(tmux, "zsh", conv_home, fake, after="autoload -Uz compinit && compinit -u")
    assert sh.output_of("print -r -- ${_comps[conv]}", timeout=30).strip() == "_conv"
    sh.type("conv sho")
    sh.key("Tab")
    sh.wait_text(r"conv show $", timeout=30)
