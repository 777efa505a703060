"""Fetch and push through dulwich, for a machine without the git CLI
(remotes.py runs git when it is installed: an incremental push to a remote
holding 10,000 conversations took 2.7-5 s through dulwich's porcelain,
0.1 s through git). dulwich's porcelain returns normally when the server
rejects a ref, so each ref's status is checked."""

from pathlib import Path

from ...errors import SyncError
from ...home.secrets import redact
from .refs import BRANCH

TYPE_CHECKING = False  # typing's, without importing typing: PEP 781's idiom

if TYPE_CHECKING:
    from .remotes import Remote


def fetch(store_path: Path, remote: "Remote", tracking: str) -> str | None:
    """The remote's main commit, now in the object store and at ``tracking`` (None: an empty remote)."""
    from dulwich import porcelain
    from dulwich.refs import DiskRefsContainer

    try:
        result = porcelain.fetch(str(store_path), remote.url)
    except Exception as exc:  # dulwich raises many kinds, all meaning "could not fetch"
        raise SyncError(f"cannot fetch from {remote.name} ({remote.shown}): {exc}") from None
    sha = result.refs.get(BRANCH.encode())
    if sha:
        DiskRefsContainer(str(store_path))[tracking.encode()] = sha
    return sha.decode() if sha else None


def push(store_path: Path, remote: "Remote", commit: str, tracking: str, lease: str | None) -> tuple[bool, str]:
    """(pushed, why the remote refused): ``commit`` offered as the remote's main,
    never forced, or (``lease``) only if its main is still at that commit; once
    it is there, ``tracking`` follows, as git's does."""
    if lease:
        ok, why = _push_with_lease(store_path, remote, commit, lease)
    else:
        from dulwich import porcelain

        try:  # dulwich wants a ref, not a commit id, on the left: the branch is at ``commit``
            result = porcelain.push(str(store_path), remote.url, refspecs=[f"{BRANCH}:{BRANCH}".encode()])
        except Exception as exc:
            text = str(exc)
            if type(exc).__name__ == "DivergedBranches" or "fast-forward" in text or "rejected" in text.lower():
                return False, "non-fast-forward"
            raise SyncError(f"cannot push to {remote.name} ({remote.shown}): {text}") from None
        status = (getattr(result, "ref_status", None) or {}).get(BRANCH.encode())
        ok, why = status is None, status.decode() if isinstance(status, bytes) else str(status or "")
    if ok:
        from dulwich.refs import DiskRefsContainer

        DiskRefsContainer(str(store_path))[tracking.encode()] = commit.encode()
    return ok, why


def _push_with_lease(store_path: Path, remote: "Remote", commit: str, lease: str) -> tuple[bool, str]:
    """git's protocol-level lease: the update names the old value the server
    must still have, so a remote that moved refuses it."""
    from dulwich.client import get_transport_and_path
    from dulwich.repo import Repo

    def update(refs: dict) -> dict:
        if refs.get(BRANCH.encode()) != lease.encode():
            raise _Moved
        return {BRANCH.encode(): commit.encode()}

    try:
        with Repo(str(store_path)) as repo:
            client, path = get_transport_and_path(remote.url)
            result = client.send_pack(path, update, generate_pack_data=lambda have, want, **kw:
                                      repo.generate_pack_data(set(have), set(want), **kw))
    except _Moved:
        return False, "stale info"
    except Exception as exc:
        raise SyncError(f"cannot push to {remote.name} ({remote.shown}): {redact(str(exc))}") from None
    status = (getattr(result, "ref_status", None) or {}).get(BRANCH.encode())
    return status is None, str(status or "")


class _Moved(Exception):
    """The remote's main is no longer at the lease."""
