"""An agent's settings file as conv reads and writes it: through links (a
dotfiles manager's: the file changes, the link stays), whole or not at all,
its permissions and line endings kept; its bytes before conv kept in the
record (base64), to be put back by ``--remove``."""

import base64
import hashlib
import os
import stat
from pathlib import Path

from ..errors import ConvError

MOST_BYTES = 4 << 20  # a settings file is kilobytes; past this it is something else


def real(file: Path) -> Path:
    return Path(os.path.realpath(file))


def read(file: Path) -> bytes | None:
    """The settings file's bytes (None: there is none); anything but a plain
    file of a settings file's size is refused, never waited on or read whole
    (a pipe, a device: a link to /dev/zero)."""
    try:
        fd = os.open(real(file), os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConvError(f"cannot read {file}: {exc.strerror or exc}", "Check its permissions") from None
    kind = os.fstat(fd).st_mode  # (before open(): a folder's descriptor is refused there with a traceback)
    if not stat.S_ISREG(kind):
        os.close(fd)
        if stat.S_ISDIR(kind):
            raise ConvError(f"{file} is a folder, not a settings file", "Move it away, then connect again")
        raise ConvError(f"{file} is not a plain file (a pipe or a device)", "Make it a plain file, then "
                        "connect again")
    with open(fd, "rb") as found:
        data = found.read(MOST_BYTES + 1)
    if len(data) > MOST_BYTES:
        raise ConvError(f"{file} is over {MOST_BYTES >> 20} MB: no settings file conv will rewrite",
                        "Check what it is, then connect again")
    return data


def missing(file: Path) -> list[str]:
    """The folders writing ``file`` will make (to be removed again with it), outermost first."""
    target = real(file)
    return [str(p) for p in reversed([target.parent, *target.parent.parents]) if not p.exists()]


def write(file: Path, data: bytes, new_mode: int = 0o600) -> None:
    """``data`` into the settings file whole (beside, then renamed over); a new file gets ``new_mode``."""
    target = real(file)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            mode = target.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = new_mode
        if not mode & 0o200:  # made read-only on purpose (root could write it all the same)
            raise ConvError(f"{file} is read-only (mode {mode:04o})",
                            f"Make it writable (chmod u+w {file}) if conv may change it, then connect again")
        tmp = target.with_name(f".{target.name}.conv-{os.getpid()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            with open(fd, "wb") as out:
                out.write(data)
            os.chmod(tmp, mode)
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise ConvError(f"cannot write {file}: {exc.strerror or exc}",
                        "Make its folder writable, then connect again") from None


def remove(file: Path, made: list[str]) -> None:
    """The settings file conv made, gone, and the folders it made for it, where they are empty."""
    try:
        real(file).unlink()
        for folder in reversed(made):
            os.rmdir(folder)
    except OSError:
        pass  # a folder that holds something else now stays


def same_endings(text: str, like: str | None) -> str:
    """``text`` with the line endings of ``like`` (a file written with CRLF stays CRLF)."""
    if like is None or "\r\n" not in like:
        return text
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def encoded(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode()


def decoded(text) -> bytes | None:
    return base64.b64decode(text) if isinstance(text, str) else None
