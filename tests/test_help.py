"""Every command explains itself: a help text, an example, and a line in the README."""

from pathlib import Path

import pytest
import typer

from conv.cli.commands import app

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
