"""Turning what a person typed into one conversation id."""

from __future__ import annotations

from ..errors import RefError
from ..format import ids

TYPE_CHECKING = False  # typing's, without importing typing (3 ms of every follow-up): PEP 781's idiom
if TYPE_CHECKING:  # the workspace resolves its refs here
    from .workspace import Workspace


def check(ref: str) -> str:
    """The ref lower-cased, or an error if it could never name a conversation."""
    if not ids.REF_RE.match(ref):
        shown = ref.encode("unicode_escape").decode()[:40]
        raise RefError(
            f"invalid conversation reference {shown!r}",
            "Use the id shown by conv list (letters, digits and '-' only)",
        )
    return ref.lower()


def candidates(ws: Workspace, ref: str, trashed: bool = False) -> list[str]:
    ref = check(ref)
    if not trashed and ids.ID_RE.match(ref) and ws.store.has(ref):
        return [ref]  # a whole id needs no index (which may be rebuilding)
    found = ws.index.refresh().matching(ref, trashed=trashed)
    return [ref] if ref in found else found


def resolve(ws: Workspace, ref: str, trashed: bool = False) -> str:
    """The one conversation ``ref`` names (exact id, unique prefix or suffix),
    among the live ones or, with ``trashed``, among the deleted ones."""
    found = candidates(ws, ref, trashed)
    if len(found) == 1:
        return found[0]
    where, hint = (" in the trash", "See conv list --deleted") if trashed else ("", "See conv list")
    if not found:
        raise RefError(f"{ref!r} matches nothing{where}" if trashed else f"no conversation matches {ref!r}", hint)
    shown = ", ".join(found[:8]) + (f" … ({len(found)} in all)" if len(found) > 8 else "")
    raise RefError(f"{ref!r} is ambiguous{where}: {shown}", "Type more characters")
