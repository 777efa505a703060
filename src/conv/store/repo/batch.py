"""Reading many objects in a row (a history filter reads every commit and
tree, an index build thousands of blobs) through one ``git cat-file --batch``
when git is installed. Filtering 10,000 commits took 60 s through dulwich
alone, 24 s of it reading (deep delta chains resolved in Python). What such
work writes goes in as one pack (packs.py)."""

import shutil
import subprocess
from pathlib import Path


class ObjectReader:
    """``reader(sha)`` is an object's (type, content); KeyError when it is not here."""

    def __init__(self, store_path: Path, objects):
        self._path = store_path
        self._objects = objects
        self._git = None

    def __call__(self, sha: bytes) -> tuple[bytes, bytes]:
        if self._git is None and shutil.which("git"):
            self._git = subprocess.Popen(["git", "--git-dir", str(self._path), "cat-file", "--batch"],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if self._git is None:
            obj = self._objects[sha]
            return obj.type_name, obj.as_raw_string()
        self._git.stdin.write(sha + b"\n")
        self._git.stdin.flush()
        header = self._git.stdout.readline().split()
        if len(header) != 3:  # "<sha> missing"
            raise KeyError(sha)
        return header[1], self._git.stdout.read(int(header[2]) + 1)[:-1]

    def close(self) -> None:
        if self._git is not None:
            self._git.stdin.close()
            self._git.stdout.close()
            self._git.wait()
            self._git = None


def read_blobs(store_path: Path, shas: list[str]) -> dict[str, bytes]:
    """Many blobs at once through one ``git cat-file --batch`` ({} without git:
    objects.py then reads them one by one as they are asked for). An index
    build read 60,000 blobs through dulwich in 4.5 s. The request and the
    answer go through files, not pipes: a pipe woke this process some 2,000
    times a chunk to take a few kilobytes at a time."""
    if not shas or not shutil.which("git"):
        return {}
    import tempfile

    with tempfile.TemporaryFile() as request, tempfile.TemporaryFile() as answer:
        request.write("".join(f"{sha}\n" for sha in shas).encode())
        request.seek(0)
        done = subprocess.run(["git", "--git-dir", str(store_path), "cat-file", "--batch", "--buffer"],
                              stdin=request, stdout=answer, stderr=subprocess.DEVNULL)
        if done.returncode:
            return {}
        answer.seek(0)
        return answered(answer.read(), shas)


def answered(data: bytes, shas: list[str]) -> dict[str, bytes]:
    """What ``git cat-file --batch`` answered to ``shas``, asked in that order:
    each one's content (those missing left out)."""
    out, at = {}, 0
    for sha in shas:
        end = data.index(b"\n", at)
        header = data[at:end].split()
        at = end + 1
        if len(header) != 3:  # "<sha> missing"
            continue
        size = int(header[2])
        out[sha] = data[at : at + size]
        at += size + 1
    return out
