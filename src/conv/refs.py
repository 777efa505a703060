"""Turning what a person typed into one conversation id."""

from . import ids
from .errors import RefError
from .index import Index


def check(ref: str) -> str:
    """The ref lower-cased, or an error if it could never name a conversation."""
    if not ids.REF_RE.match(ref):
        shown = ref.encode("unicode_escape").decode()[:40]
        raise RefError(
            f"invalid conversation reference {shown!r}",
            "Use the id shown by conv list (letters, digits and '-' only)",
        )
    return ref.lower()


def candidates(index: Index, ref: str) -> list[str]:
    ref = check(ref)
    if ids.ID_RE.match(ref) and index.store.has(ref):
        return [ref]  # a whole id needs no index (which may be rebuilding)
    found = index.refresh().matching(ref)
    return [ref] if ref in found else found


def resolve(index: Index, ref: str) -> str:
    """The one conversation ``ref`` names (exact id, unique prefix or suffix)."""
    found = candidates(index, ref)
    if len(found) == 1:
        return found[0]
    if not found:
        raise RefError(f"no conversation matches {ref!r}", "See conv list")
    shown = ", ".join(found[:8]) + (f" … ({len(found)} in all)" if len(found) > 8 else "")
    raise RefError(f"{ref!r} is ambiguous: {shown}", "Type more characters")
