"""The branch's ref read and moved the way git does it, without dulwich: a
loose ref file first, then ``packed-refs``; a move takes ``<ref>.lock`` (made
exclusively, as git and dulwich make it), checks the old value under it,
and renames it over the ref after an fsync."""

import os

BRANCH = "refs/heads/main"  # the store's one branch


def read_ref(store: str, name: str) -> str | None:
    try:
        with open(f"{store}/{name}", "rb") as f:
            return f.read().strip().decode() or None
    except FileNotFoundError:
        pass
    try:
        with open(f"{store}/packed-refs", "rb") as f:
            for line in f.read().splitlines():
                sha, _, ref = line.partition(b" ")
                if ref.decode() == name:
                    return sha.decode()
    except FileNotFoundError:
        pass
    return None


def swap_ref(store: str, name: str, old: str | None, new: str) -> bool:
    """Point ``name`` at ``new`` if it points at ``old`` now (None: no such ref);
    False when it does not. A ``.lock`` left by a writer that died must be
    cleared first (lock.clear_stale_ref_locks): this one fails on it."""
    path = f"{store}/{name}"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path + ".lock", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        if read_ref(store, name) != old:
            return False
        os.write(fd, new.encode() + b"\n")
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(path + ".lock", path)
        return True
    finally:
        if fd != -1:
            os.close(fd)
        if os.path.exists(path + ".lock"):
            os.unlink(path + ".lock")
