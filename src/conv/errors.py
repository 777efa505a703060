"""The one user-facing error type, and conv's exit codes.

Every layer raises ``ConvError`` (or a subclass) for anything the user can fix;
the entry point prints it as one line and exits with its code. Anything else
is a bug and keeps its traceback.
"""

EXIT_OK = 0
EXIT_ERROR = 1  # bad input, unknown ref, corrupt file: the user can fix it
EXIT_USAGE = 2  # wrong flags or arguments (the same code click uses)
EXIT_PROVIDER = 3  # the model's server refused, failed or could not be reached
EXIT_SYNC = 4  # a remote could not be reached, or refused a push
EXIT_INTERRUPTED = 130  # Ctrl-C: what was received is kept


class ConvError(Exception):
    """A problem the user can act on: ``message`` says what, ``hint`` what to do."""

    exit_code = EXIT_ERROR

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message.rstrip('.')}. {self.hint}" if self.hint else self.message


class UsageError(ConvError):
    exit_code = EXIT_USAGE


class ProviderError(ConvError):
    """The model call failed; the question is already stored."""

    exit_code = EXIT_PROVIDER


class SyncError(ConvError):
    """A transfer failed: unreachable, refused, or raced by another pusher."""

    exit_code = EXIT_SYNC


class RefError(ConvError):
    """A conversation reference that is invalid, unknown or ambiguous."""


class StoreError(ConvError):
    """The store holds something conv cannot read (e.g. a hand edit gone wrong)."""


class Interrupted(Exception):
    """Ctrl-C, or the terminal went away, while an answer was arriving; or
    stdout's reader went away (SIGPIPE: exit 141, as if killed by it)."""

    def __init__(self, signum: int = 2):
        super().__init__(f"signal {signum}")
        self.exit_code = 128 + signum
