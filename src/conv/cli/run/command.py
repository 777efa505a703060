"""Running ``conv cmd`` once its arguments are parsed (by Typer or the fast
path): the command alone on stdout, one line a line, for a shell plugin to
put in its buffer as data."""

import os

from ...records import dataclass


@dataclass
class CommandRequest:
    words: list[str]
    shell: str | None = None  # default: $SHELL's, else sh
    model: str | None = None
    json_out: bool = False
    quiet: bool = False


def run(request: CommandRequest) -> None:
    from ...errors import UsageError
    from ...services.command import SHELLS, suggest
    from ...terminal import render, views

    description = " ".join(request.words).strip()
    if not description:
        raise UsageError("nothing to turn into a command", 'Describe it, e.g. conv cmd "find files over 100 MB"')
    shell = request.shell or os.path.basename(os.environ.get("SHELL", ""))
    if request.shell is None and shell not in SHELLS:
        shell = "sh"
    if shell not in SHELLS:
        raise UsageError(f"conv cmd knows no shell {shell!r}", f"Give one of: --shell {', '.join(SHELLS)}")
    notice = (lambda m: None) if request.quiet else render.notice
    suggested = suggest(notice, description, shell, request.model)
    views.emit(suggested, request.json_out, views.command)
