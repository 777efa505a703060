"""Answers that arrived but could not be committed (the disk filled up, or the
store turned read-only, while the model spoke), kept in room reserved beside
the store when the question was committed (there was room then), and
committed by the next write of the store.

``conv-pending/<conversation>/.reserved-<question>.<pid>`` is room held for
an answer on its way (its owner holds an flock on it while alive; the pid
keeps concurrent retries of one question from waiting on each other's room);
``conv-pending/<conversation>/<turn name>.md`` is a kept answer: the very
file that goes into the conversation's folder.
"""

import fcntl
import os
import time
from collections.abc import Callable
from pathlib import Path

from ..errors import DiskError, writing
from ..format.model import Turn
from .layout import META_FILE, ROOT, TRASH, folder

FOLDER = "conv-pending"
ROOM = 64 * 1024  # bytes reserved at first: most answers are a few KB
MARGIN = 8 * 1024  # the turn's frontmatter, an error message
FRESH = 10  # seconds: unlocked room younger than this may be a writer's that has not locked it yet

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of every follow-up): PEP 781's idiom
if TYPE_CHECKING:
    from .repo.git import GitStore


class Reservation:
    """Room for one answer, made while the disk still had some. Best effort:
    where none could be made, keeping the answer is tried all the same."""

    def __init__(self, store: Path, conv_id: str, question: str):
        self.path = store / FOLDER / conv_id / f".reserved-{question}.{os.getpid()}"
        self.released = False
        self._fd: int | None = None
        self._room = self._received = 0
        for _ in range(2):  # a writer tidying up may remove the empty folder in between
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                fcntl.flock(self._fd, fcntl.LOCK_EX)
                break
            except OSError:
                continue
        self.expect(0)

    def expect(self, more: int) -> None:
        """``more`` bytes of answer arrived: keep the room ahead of them."""
        self._received += more
        needed = self._received + MARGIN
        if self._fd is None or needed <= self._room:
            return
        size = max(ROOM, 2 * needed)
        try:
            os.posix_fallocate(self._fd, 0, size)
            self._room = size
        except OSError:
            pass  # no more room: what was reserved stays

    def keep(self, name: str, data: bytes) -> Path:
        """Write the turn into the reserved room, under the name it will have."""
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        written = 0
        while written < len(data):
            written += os.pwrite(self._fd, data[written:], written)
        os.ftruncate(self._fd, len(data))
        os.fsync(self._fd)
        kept = self.path.with_name(name)
        os.rename(self.path, kept)
        self.path = kept
        self._close()
        return kept

    def release(self) -> None:
        """The answer was committed (or nothing is to be kept): give the room back."""
        self.released = True
        if self._fd is not None:
            self.path.unlink(missing_ok=True)
            self._close()

    def _close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # releases the flock: a kept answer is now the next writer's to commit
            self._fd = None


class KeptAnswers:
    """The kept answers of the store at ``store``: room reserved for those
    on their way, and those kept after a write failed."""

    def __init__(self, store: Path, notice: Callable[[str], None], git: Callable[[], "GitStore"]):
        self.store = store
        self._notice = notice
        self._git = git
        self._rooms: dict[str, Reservation] = {}  # conversation folder -> its room
        self._checked = False

    def reserve(self, conv_id: str, question: str) -> Reservation:
        room = Reservation(self.store, conv_id, question)
        self._rooms[folder(conv_id)] = room
        return room

    def kept_after(self, error: DiskError, changes: dict) -> DiskError:
        """A write adding a turn to a conversation with reserved room failed
        for ``error``: keep the turn there, and say so."""
        for path, data in changes.items():
            where, _, name = path.rpartition("/")
            room = self._rooms.get(where)
            if room is not None and not room.released and isinstance(data, bytes) and name != META_FILE:
                try:
                    return error.kept(room.keep(name, data))
                except OSError:
                    return error
        return error

    def commit_kept(self) -> None:
        """Commit the answers earlier writes kept, each in its own commit (once
        a process: every write calls this first, and conv ask at its start)."""
        if self._checked:
            return
        self._checked = True
        with writing(self.store):
            try:
                folders = sorted((self.store / FOLDER).iterdir())
            except (FileNotFoundError, NotADirectoryError):
                return
            git = self._git()
            for conv in folders:
                try:
                    paths = sorted(conv.iterdir())
                except FileNotFoundError:
                    continue  # another writer found it empty and removed it
                for path in paths:
                    self._commit_one(git, conv.name, path)
                try:
                    conv.rmdir()
                except OSError:
                    pass  # answers on their way, or one that could not go in yet

    def _commit_one(self, git: "GitStore", conv_id: str, path: Path) -> None:
        if not (path.name.endswith(".md") or path.name.startswith(".reserved-")):
            return  # not conv's
        try:
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        except FileNotFoundError:
            return
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return  # its owner is alive: an answer on its way
            if os.fstat(fd).st_nlink == 0:
                return  # another process committed it meanwhile
            if path.name.startswith(".reserved-"):
                if time.time() - os.fstat(fd).st_mtime > FRESH:
                    path.unlink()  # room a killed writer never used
                return  # (a fresh one: its owner may be between making it and locking it)
            with open(os.dup(fd), "rb") as f:
                data = f.read()
            turn = Turn.from_text(path.name[:-3], data.decode("utf-8", "surrogateescape"), str(path))

            def build(snap):
                for root in (ROOT, TRASH):
                    where = folder(conv_id, root)
                    if snap.read(f"{where}/{META_FILE}") is not None:
                        if snap.entry(f"{where}/{path.name}") is not None:
                            return None  # went in already (a process killed before it removed the file)
                        message = f"{conv_id}: answer kept from a failed write ({turn.model})"
                        return {f"{where}/{path.name}": data}, message
                return None  # the conversation was purged since: so is its answer

            if git.update(build) is not None:
                self._notice(f"committed the answer to {conv_id} kept in {path} when the store could not be written")
            path.unlink()
        finally:
            os.close(fd)
