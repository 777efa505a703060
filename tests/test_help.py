"""Every command explains itself: a help text, an example, and a line in the README."""

from pathlib import Path

import pytest
import typer

from conv.cli.commands import app, app_for

README = (Path(__file__).parent.parent / "README.md").read_text()


def commands():
    root = typer.main.get_command(app)
    for name, command in root.commands.items():
        subcommands = getattr(command, "commands", None)
        if subcommands:
            yield from ((f"{name} {sub}", c) for sub, c in subcommands.items())
        else:
            yield name, command


@pytest.mark.parametrize("name, command", list(commands()))
def test_every_command_has_help_an_example_and_a_readme_mention(name, command):
    assert (command.help or "").strip(), f"conv {name} has no help text"
    assert f"conv {name}" in (command.epilog or ""), f"conv {name} --help shows no example"
    assert f"conv {name}" in README, f"README.md never mentions conv {name}"


@pytest.mark.parametrize("name", sorted({name.split()[0] for name, _ in commands()}))
def test_a_run_builds_only_its_command_and_says_the_same(name):
    """conv's main() gives Typer only the command a run names (app_for: all 38
    took 17 ms of every start); that command's help and usage errors read the
    same as with the whole app."""
    from typer.testing import CliRunner

    only = typer.main.get_command(app_for([name, "--help"]))
    assert list(only.commands) == [name]
    for args in ([name, "--help"], [name, "--no-such-option"]):
        alone, whole = (CliRunner().invoke(a, args, prog_name="conv") for a in (app_for(args), app))
        assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output)


@pytest.mark.parametrize("args", [[], ["--help"], ["--version"], ["lisst"]])
def test_no_command_named_builds_them_all(args):
    assert app_for(args) is app
