"""What the shell plugins need from conv, fast (no Typer): the plugin text
(``conv init SHELL``) and the prompt segment (``conv prompt``)."""

import os
import sys
from pathlib import Path

SHELLS = ("zsh", "bash", "fish")
PLUGINS = Path(__file__).resolve().parents[2] / "shell"  # conv/shell: the repository's shell/ (a symlink)


def plugin(shell: str) -> str:
    """The plugin for ``shell``, told where conv and its state live."""
    from ...errors import UsageError
    from ...home.paths import state_dir

    if shell not in SHELLS:
        raise UsageError(f"unknown shell {shell!r}", "Use one of: " + ", ".join(SHELLS))
    text = (PLUGINS / f"conv.{shell}").read_text()
    quote = _fish_quote if shell == "fish" else _sh_quote
    return text.replace("__CONV_BIN__", quote(_conv_bin())).replace("__CONV_STATE__", quote(str(state_dir())))


def segment() -> str:
    """This terminal's prompt segment (``conv:k3f9x2·4``), or "" when it has
    no current conversation or the conversation's session expired."""
    import time

    from ...home import session

    try:
        name = session.session_name()
    except Exception:
        return ""
    state = session.load(name) if name else None
    if state is None or state.expires < time.time():
        return ""
    return f"conv:{state.short}·{state.turns}"


def _conv_bin() -> str:
    """This conv's own command, so the plugin runs the same installation."""
    argv0 = os.path.abspath(sys.argv[0])
    if os.path.basename(argv0) == "conv" and os.access(argv0, os.X_OK):
        return argv0
    import shutil

    return shutil.which("conv") or "conv"


def _sh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
