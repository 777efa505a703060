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
        return then(self.message, self.hint) if self.hint else self.message


def then(said: str, more: str) -> str:
    """Two sentences as one line: a full stop between them, unless the first ends with its own mark."""
    said = said.rstrip(".")
    return f"{said}{' ' if said.endswith(('?', '!')) else '. '}{more}"


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


class DiskError(StoreError):
    """A file conv keeps could not be written: the disk is full, or the place is
    read-only. ``fix`` is what to do about it, said without "then run it again"
    so that a caller keeping what it could (an answer) can say what happens next."""

    def __init__(self, message: str, fix: str):
        super().__init__(message, f"{fix}, then run the command again")
        self.fix = fix

    @classmethod
    def of(cls, exc: OSError, where) -> "DiskError | None":
        """The error ``exc`` means while writing ``where`` (None: not the disk's doing)."""
        import errno

        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return cls(f"no space left on the disk holding {where}", "Free some space")
        if exc.errno == errno.EROFS:
            return cls(f"{where} is on a read-only file system", "Remount it writable or set CONV_HOME elsewhere")
        if exc.errno in (errno.EACCES, errno.EPERM):
            return cls(f"{where} is read-only for you (permission denied: {exc.filename or where})",
                       f"Run conv as its owner, or make it yours: chown -R $(id -un) {where}")
        return None

    def kept(self, path) -> "DiskError":
        """The same failure, saying where what could not be written was kept."""
        error = DiskError(f"{self.message}; the answer is kept in {path}", self.fix)
        error.hint = f"{self.fix}: the next conv command that writes the store commits it"
        return error


class writing:
    """``with writing(where):`` turns a full disk or a read-only place met
    inside the block into one DiskError about ``where``. (A class, not a
    contextlib generator: conv push must not wait for contextlib's import.)"""

    def __init__(self, where):
        self.where = where

    def __enter__(self) -> None:
        pass

    def __exit__(self, kind, exc, trace) -> None:
        if isinstance(exc, OSError):
            error = DiskError.of(exc, self.where)
            if error is not None:
                raise error from None


class Interrupted(Exception):
    """Ctrl-C, or the terminal went away, while an answer was arriving; or
    stdout's reader went away (SIGPIPE: exit 141, as if killed by it)."""

    def __init__(self, signum: int = 2):
        super().__init__(f"signal {signum}")
        self.exit_code = 128 + signum
