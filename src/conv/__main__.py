"""Entry point. Turns conv's errors into one line and an exit code (see
``errors``), and Ctrl-C anywhere into a quiet exit 130. Arguments that are not
UTF-8 are refused here, before any command sees them."""

import signal
import sys


def _interrupt(signum, frame):
    from .errors import Interrupted

    raise Interrupted(signum)


def main() -> None:
    # Raised instead of KeyboardInterrupt so click does not print "Aborted!" and exit 1.
    signal.signal(signal.SIGINT, _interrupt)
    from .errors import ConvError, Interrupted

    try:
        args = sys.argv[1:]
        _refuse_undecodable(args)
        from .cli.run import fast_path

        if not fast_path(args):
            _typer_path(args)
    except ConvError as exc:
        from .terminal.render import error

        error(str(exc))
        sys.exit(exc.exit_code)
    except Interrupted as exc:
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)


def _refuse_undecodable(args: list[str]) -> None:
    """Python hands bytes that are not UTF-8 over as lone surrogates, which
    would fail later, deep in a commit or a query; refuse them first, naming
    the argument."""
    for position, arg in enumerate(args, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            from .errors import UsageError

            raise UsageError(
                f"argument {position} is not UTF-8 text: {_shown(arg)}",
                "Give it as UTF-8 (e.g. convert it with iconv -t UTF-8); nothing was done",
            ) from None


def _shown(arg: str, width: int = 72) -> str:
    """The argument as readable text, quoted (a long one cut to ``width``
    characters around its first bad byte); bytes that are not UTF-8, and
    control characters, written as \\xNN."""
    import os
    import re

    raw = os.fsencode(arg)  # the bytes as they were given
    try:
        raw.decode("utf-8")
        bad = len(raw)
    except UnicodeDecodeError as exc:
        bad = exc.start
    before, after = raw[:bad].decode("utf-8"), raw[bad:].decode("utf-8", "backslashreplace")
    start = max(0, min(len(before) - width // 3, len(before) + len(after) - width))
    text = (before + after)[start : start + width]
    cut = "…" * (start > 0), "…" * (start + width < len(before) + len(after))
    text = re.sub(r"[\x00-\x1f\x7f-\x9f]", lambda m: f"\\x{ord(m[0]):02x}", text)
    return f"{cut[0]}'{text}'{cut[1]}"


def _typer_path(args: list[str]) -> None:
    """Every other command, through Typer; its usage errors as one line too."""
    from typer.main import get_command

    from .cli.commands import app

    try:
        code = get_command(app).main(args=args, prog_name="conv", standalone_mode=False)
    except Exception as exc:
        if not (hasattr(exc, "format_message") and isinstance(getattr(exc, "exit_code", None), int)):
            raise  # not a usage error: a bug, with its traceback
        if type(exc).__name__ == "NoArgsIsHelpError":
            sys.exit(0)  # the help was shown
        from .terminal.render import error

        where = getattr(getattr(exc, "ctx", None), "command_path", "conv")
        error(f"{exc.format_message().rstrip('.')}. Try '{where} --help'")
        sys.exit(exc.exit_code)
    if isinstance(code, int) and code:
        sys.exit(code)


if __name__ == "__main__":
    main()
