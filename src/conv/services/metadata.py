"""Changing what conversation.md says: title, tags, status, summary. Each
change is one commit; comments and keys a person added by hand are kept."""

from ..errors import UsageError
from ..format.model import STATUSES
from ..format.naming import is_tag
from ..store import Written
from .workspace import Workspace


def _change(ws: Workspace, ref: str | None, what: str, apply) -> Written:
    conv_id = ws.resolve(ref)

    def edit(draft) -> str:
        apply(draft.conv)
        draft.save_meta()
        return f"{conv_id}: {what}"

    written = ws.store.change(conv_id, edit)
    ws.index.refresh()
    return written


def set_title(ws: Workspace, ref: str | None, title: str) -> Written:
    title = " ".join(title.split())
    if not title:
        raise UsageError("a title needs some text", 'e.g. conv title k3f9x2 "git rebase notes"')
    return _change(ws, ref, f"title {title!r}", lambda conv: setattr(conv, "title", title))


def change_tags(ws: Workspace, ref: str | None, changes: list[str]) -> list[str]:
    """``+tag`` adds, ``-tag`` removes (a bare ``tag`` adds); returns the tags after."""
    add, drop = [], []
    for change in changes:
        sign, tag = (change[0], change[1:]) if change[:1] in "+-" else ("+", change)
        if not is_tag(tag):
            raise UsageError(f"{change!r} is not a tag", "Tags are single words: conv tag REF +work -draft")
        (add if sign == "+" else drop).append(tag)
    result: list[str] = []

    def apply(conv):
        conv.tags = [t for t in conv.tags if t not in drop] + [t for t in add if t not in conv.tags]
        result[:] = conv.tags

    _change(ws, ref, "tags " + " ".join(changes), apply)
    return result


def set_status(ws: Workspace, ref: str | None, status: str) -> Written:
    if status not in STATUSES:
        raise UsageError(f"unknown status {status!r}", "Use one of: " + ", ".join(STATUSES))
    return _change(ws, ref, f"status {status}", lambda conv: setattr(conv, "status", status))


def set_summary(ws: Workspace, ref: str | None, summary: str) -> Written:
    return _change(ws, ref, "summary", lambda conv: setattr(conv, "summary", summary.strip() or None))
