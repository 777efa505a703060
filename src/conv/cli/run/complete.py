"""Tab completion, answered without Typer: ``conv __complete WORD…`` (the
command line after ``conv``, the last word the one being typed) prints the
candidates one a line, ``VALUE<TAB>DESCRIPTION``: subcommands, a command's
options, conversations (short id and title, from the index) where one is
taken, models after -m (aliases and endpoints' models). The plugins
(shell/conv.*) run it when TAB is pressed, never at start-up. The tables
offered come from cli/spec.py, held to Typer's by tests/test_completion.py."""

import sys

from ..spec import GROUPS, OPTIONS, TAKE_A_CONVERSATION

MOST = 200  # conversations offered at once: the newest that match what is typed


def run(words: list[str]) -> None:
    for value, description in candidates(words):
        sys.stdout.write(f"{value}\t{description}\n" if description else f"{value}\n")


def candidates(words: list[str]) -> list[tuple[str, str]]:
    *before, typed = words or [""]
    if not before:
        return [(name, "") for name in dict.fromkeys((*OPTIONS, *GROUPS)) if name.startswith(typed)]
    command, previous = before[0], before[-1]
    if command in GROUPS and not typed.startswith("-"):
        return [(name, "") for name in GROUPS[command] if name.startswith(typed)] if len(before) == 1 else []
    if previous in ("-m", "--model"):
        return _models(typed)
    if previous in TOOL_OPTIONS or (command == "connect" and all(w.startswith("-") for w in before[1:])
                                    and not typed.startswith("-")):  # its one argument, after its switches or not
        return _tools(TOOL_OPTIONS.get(previous, "settings"), typed)
    if typed.startswith("-"):
        return [(option, "") for option in sorted(OPTIONS.get(command, {})) if option.startswith(typed)]
    if command in TAKE_A_CONVERSATION or previous in ("-c", "--continue", "--cid"):
        return _conversations(typed)
    return []


TOOL_OPTIONS = {"--from": "reader", "--source": "reader", "--to": "handoff"}  # options naming a tool: the part it needs
MORE_TOOLS = {"reader": (("project", "teammates' conversations of this git project"),),
              "settings": (("all", "every tool on this machine"),)}


def _tools(part: str, typed: str) -> list[tuple[str, str]]:
    """The tools offering ``part``, from the registry, with their titles."""
    from ...services import tools

    return [(name, title) for name, title in [*tools.named(part), *MORE_TOOLS.get(part, ())]
            if name.startswith(typed)]


def _quiet(message: str) -> None:
    """What the store or index would say on the side: not on a line being completed."""


def _conversations(typed: str) -> list[tuple[str, str]]:
    """(short id, title) of the newest conversations whose id starts with what is typed."""
    from ...services.browse import completions
    from ...services.workspace import Workspace
    from ...terminal.sanitize import clean

    return [(short, " ".join(clean(title).split())[:80])
            for short, title in completions(Workspace(_quiet), typed, MOST)]


def _models(typed: str) -> list[tuple[str, str]]:
    from ...services.models import names
    from ...services.workspace import Workspace

    return [(name, "") for name in names(Workspace(_quiet)) if name.startswith(typed)]
