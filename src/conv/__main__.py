"""Entry point. Turns conv's errors into one line and an exit code (see
``errors``), a full disk or a read-only place anywhere into one line too,
and Ctrl-C anywhere into a quiet exit 130. Arguments that are not UTF-8 are
refused here, before any command sees them (cli/run/text.py)."""
import atexit
import gc
import signal
import sys

# As the process ends, Python collects every object left in one last full
# pass: 3 ms for what a command has imported, of the 25 ms conv push may add
# to git push. Frozen first, they are not collected (their memory goes with
# the process); atexit handlers, flushing and module teardown all still run.
atexit.register(gc.freeze)


def _interrupt(signum, frame):
    from .errors import Interrupted

    raise Interrupted(signum)


def main() -> None:
    # Raised instead of KeyboardInterrupt so click does not print "Aborted!" and exit 1.
    signal.signal(signal.SIGINT, _interrupt)
    from .errors import ConvError, Interrupted

    try:
        from .cli.run import fast_path
        from .cli.run.text import refuse_undecodable

        args = sys.argv[1:]
        for position, arg in enumerate(args, 1):  # before any command sees them
            refuse_undecodable(arg, f"argument {position}", "Give it as UTF-8 (e.g. convert it with iconv -t UTF-8)")
        from .terminal.progress import attach

        attach()  # long work (an index build, an import, a first pull) shows a bar on a terminal
        if not fast_path(args):
            _typer_path(args)
        sys.stdout.flush()  # a reader that went away shows here, not as a message at exit
    except ConvError as exc:
        from .terminal.render import error

        error(str(exc))
        sys.exit(exc.exit_code)
    except Interrupted as exc:
        sys.exit(exc.exit_code)
    except BrokenPipeError:  # as a process killed by SIGPIPE ends (render.py turns its own into Interrupted)
        from .terminal.render import drop_stdout

        drop_stdout()
        sys.exit(141)
    except OSError as exc:  # a full disk or a read-only place met outside the store: no bug of conv's
        from .errors import DiskError
        from .terminal.render import error

        said = DiskError.of(exc, exc.filename or "a file conv keeps")
        if said is None:
            raise
        error(str(said))
        sys.exit(said.exit_code)


def _typer_path(args: list[str]) -> None:
    """Every other command, through Typer; its usage errors as one line too."""
    from typer.main import get_command

    from .cli.commands import app_for

    try:
        code = get_command(app_for(args)).main(args=args, prog_name="conv", standalone_mode=False)
    except Exception as exc:
        if not (hasattr(exc, "format_message") and isinstance(getattr(exc, "exit_code", None), int)):
            raise  # not a usage error: a bug, with its traceback
        if type(exc).__name__ == "NoArgsIsHelpError":
            sys.exit(0)  # the help was shown
        from .errors import then
        from .terminal.render import error

        error(then(exc.format_message(), f"Try '{_where(exc, args)} --help'"))
        sys.exit(exc.exit_code)
    if isinstance(code, int) and code:
        sys.exit(code)


def _where(exc, args: list[str]) -> str:
    """The command a usage error is about (click names none for an option missing its value)."""
    found = getattr(getattr(exc, "ctx", None), "command_path", None)
    if found:
        return found
    from .cli.spec import GROUPS, OPTIONS

    named = next((a for a in args if not a.startswith("-")), None)
    return f"conv {named}" if named in OPTIONS or named in GROUPS else "conv"


if __name__ == "__main__":
    main()
