"""Files in a question (``conv ask -f FILE``, chat's ``/file``): read and
checked before anything is stored or sent, kept beside the question's turn
as files of their own (git keeps one copy of each, however often it is
sent), and sent with the turn whenever it is in the context: a text file as
a fenced block named by its path, an image (png, jpeg, gif, webp) as an
image part to a provider that takes them, and as a line saying it was
left out to one that takes none."""

import os

from ...errors import UsageError
from ...format.fence import fenced
from ...format.model import Turn
from ...format.turn_files import Attachment, classified
from ...providers import Message

STDIN = "-"
PIPE_SECONDS = 30  # the most a pipe given to -f is waited on for its end


def read(paths: list[str], stdin: bytes | None, most: int) -> list[Attachment]:
    """The files named, each checked: at most ``most`` bytes, and UTF-8 text or an image."""
    out = []
    for path in paths:
        name = "stdin" if path == STDIN else path
        if path == STDIN:
            if not stdin:
                raise UsageError("-f - reads stdin, but nothing was piped", "Pipe the file in: conv ask -f - … < FILE")
            data = stdin
        else:
            data = _read(path, most)
        if len(data) > most:
            size = _size(path) if path != STDIN else None
            raise UsageError(f"{name} is {f'{size:,} bytes' if size else f'more than {most:,} bytes'}, more than "
                             f"files.max_bytes ({most:,}); nothing was stored or sent",
                             "Send a part of it, or raise the limit: conv config set files.max_bytes N")
        out.append(classified(name, data))
    return out


def _size(path: str) -> int | None:
    try:
        return os.stat(path).st_size or None
    except OSError:
        return None


def _read(path: str, most: int) -> bytes:
    """A file's bytes (at most ``most`` + 1); anything that is no readable file is one line saying what it is."""
    import stat

    try:
        if os.path.isdir(path):
            raise UsageError(f"{path} is a directory", "Name the files in it, e.g. -f DIR/a.py -f DIR/b.py")
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb", buffering=0) as f:  # opened without waiting
            kind = os.fstat(f.fileno()).st_mode
            if stat.S_ISFIFO(kind):  # -f <(git diff), a named pipe: read as stdin is, to its end
                return _drained(f.fileno(), path, most)
            if not stat.S_ISREG(kind):  # a device (/dev/zero), a socket: no end to wait for
                raise UsageError(f"{path} is neither a file nor a pipe", "Send a file; for what a command prints, "
                                 "pipe it in: COMMAND | conv ask -f - …")
            return f.read(most + 1)
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}", "Check the path") from None
    except PermissionError:
        raise UsageError(f"cannot read {path}: permission denied", "Check its permissions") from None
    except OSError as exc:  # a loop of links, a socket, a name too long, /proc/self/mem …
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}", "Send a regular file") from None


def _drained(fd: int, path: str, most: int) -> bytes:
    """A pipe's bytes to its end, as stdin is read: at most ``most`` + 1 of them, within PIPE_SECONDS
    (a writer that never comes, or never stops, is refused, nothing stored or sent)."""
    import select
    import time

    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    chunks, size, deadline = [], 0, time.monotonic() + PIPE_SECONDS
    while size <= most:
        left = deadline - time.monotonic()
        if left <= 0:
            raise UsageError(f"{path} is a pipe that did not end within {PIPE_SECONDS} s; nothing was stored or sent",
                             "Write the output to a file first, and send that")
        if not poller.poll(left * 1000):
            continue
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            continue
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def refuse_images(images: list[str], provider: object, provider_name: str, model: str) -> None:
    """Before anything is stored or sent: images (their names) to a provider that sees none."""
    if images and not getattr(provider, "IMAGES", False):
        raise UsageError(f"{provider_name}:{model} takes no images ({', '.join(images)}); nothing was stored or sent",
                         "Ask a model that sees images, e.g. -m gpt-4o or -m anthropic:claude-sonnet-4-5")


class Speaker:
    """Turns as messages, with their files: the bytes come from the turn when
    it is not stored yet (``--no-save``, ``--dry-run``), else from the store."""

    def __init__(self, store, conv_id: str, images: bool, unsent: str = ", not sent: this model takes no images"):
        self.store, self.conv_id, self.images, self.unsent = store, conv_id, images, unsent

    def __call__(self, turn: Turn) -> Message:
        if not turn.files:
            return Message(turn.role, turn.content)
        texts, images = [turn.content], []
        for f in turn.files:
            if f.get("sent") is False:
                continue
            data = self.data(turn, f["file"])
            kind = str(f.get("type") or "")
            if not kind.startswith("image/"):
                texts.append(f"{f.get('name') or f['file']}:\n{fenced(data.decode('utf-8', 'replace'))}")
            elif self.images:
                texts.append(f"[image: {f.get('name')}]")
                images.append((kind, data))
            else:
                texts.append(f"[image: {f.get('name')}{self.unsent}]")
        return Message(turn.role, "\n\n".join(t for t in texts if t), tuple(images))

    def data(self, turn: Turn, file: str) -> bytes:
        found = turn.attached.get(file)
        return found if found is not None else self.store.attachment(self.conv_id, file)
