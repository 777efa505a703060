"""Remotes that still hold purged text.

After a purge, or a fetch from a remote that was never rewritten, a remote's
tracking ref points at the filtered image of the remote's real head, so this
store keeps nothing purged reachable. The real head is kept in a plain file
(``conv-remote-heads``, "name head" lines; not a ref, so it keeps nothing
reachable): it is what ``conv remote purge`` leases, and how conv knows
which remotes still hold purged text.
"""

import os

from . import gitcli

TYPE_CHECKING = False  # typing's, without importing typing: PEP 781's idiom

if TYPE_CHECKING:
    from pathlib import Path

HEADS = "conv-remote-heads"


def read(store: "str | Path") -> dict[str, str]:
    """name -> last-known real head, for the remotes that still hold purged
    text (read by every conv push, so with os.path, not pathlib)."""
    try:
        with open(os.path.join(store, HEADS), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return {}
    return dict(line.split(" ", 1) for line in lines if line.count(" ") == 1)


def record(store: "str | Path", name: str, real_head: str | None) -> None:
    """``name``'s tracking ref is a filtered image of ``real_head`` (None: of nothing, it is the real head)."""
    from pathlib import Path

    from ...home.files import write_atomic
    from .lock import writer_lock

    with writer_lock(store):
        heads = read(store)
        if heads.get(name) == real_head:
            return
        if real_head:
            heads[name] = real_head
        else:
            heads.pop(name, None)
        write_atomic(Path(store, HEADS), "".join(f"{n} {h}\n" for n, h in sorted(heads.items())))


def advertised(url: str, ref: str) -> str | None:
    """The commit the remote at ``url`` advertises for ``ref`` now (None
    without git, on failure, or when it has none): one round trip, no objects."""
    try:
        done = gitcli.run("ls-remote", url, ref, env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    except FileNotFoundError:
        return None
    return done.stdout.split()[0] if done.returncode == 0 and done.stdout.strip() else None


def path_of(url: str) -> "Path | None":
    """The repository a remote URL names on this machine, if it is a path."""
    from pathlib import Path

    if url.startswith("file://"):
        return Path(url[len("file://"):])
    if "://" in url or ":" in url.split("/", 1)[0]:
        return None
    return Path(url)
