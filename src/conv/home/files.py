"""Files that readers see whole or not at all, and files written where the
user said (``-o``)."""

import os
from pathlib import Path

from ..errors import ConvError, DiskError


def write_atomic(path: Path, text: str) -> None:
    """Write beside, then rename over: a reader sees the old or the new file,
    whole; a write that fails leaves nothing beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def due(stamp: Path, every: float) -> bool:
    """Whether background work stamped by ``stamp`` last started ``every``
    seconds ago or more; when it is due, the stamp is touched (it starts now)."""
    import time

    try:
        if time.time() - stamp.stat().st_mtime < every:
            return False
    except FileNotFoundError:
        pass
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.touch()
    return True


def json_object(path: Path) -> dict:
    """The JSON object a state file of conv's holds; {} when it is missing,
    unreadable or no object (such files are conv's own notes: losing one
    costs a little work, never data)."""
    import json

    try:
        found = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError):
        return {}
    return found if isinstance(found, dict) else {}


def output_file(given: str, name: str) -> Path:
    """Where a file goes when the user gave ``-o``: that path, or ``name``
    inside it when it is a folder (or ends in a slash, as a folder to make)."""
    path = Path(given)
    return path / name if given.endswith(os.sep) or _is_dir(path) else path


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a name too long: no folder; writing it says why
        return False


def write_out(path: Path, text: str) -> None:
    """``text`` into the file the user named, whole (write_atomic), or one line
    saying why it cannot be (no traceback, nothing left beside it). What is
    there and is no plain file (/dev/stdout, /dev/null, a FIFO, a link) is
    written into, never replaced."""
    try:
        if path.is_symlink() or (path.exists() and not path.is_file()):  # (raises for a name too long)
            with open(path, "w") as f:
                f.write(text)
        else:
            write_atomic(path, text)
    except OSError as exc:
        blocking = next((p for p in path.parents if os.path.exists(p) and not os.path.isdir(p)), None)
        why = f"{blocking} is a file, not a folder" if blocking else exc.strerror or str(exc)
        raise (DiskError.of(exc, path) or ConvError(f"cannot write {path}: {why}",
                                                    "Give -o a file in a folder you can write to")) from None
