"""Sources that keep neither message ids nor times (shell-gpt, aichat): a chat
that grew is matched against what was imported of it before by its text, so
that only its new turns are added."""

from collections.abc import Callable
from datetime import timedelta

from ..format.model import iso
from . import ImportedConversation, ImportedTurn, conversation_id
from .shape import moment


def continue_stored(imported: ImportedConversation, stored: Callable[[str], list | None]) -> None:
    """Fit ``imported`` to what was imported of it before (``stored``: a conv
    id's turns, None when there is no such conversation). The turns the
    stored ones end with are matched by role and text where the source's list
    begins (a source that drops its oldest messages begins later than the
    store), so only the turns after them are kept, dated after the last
    stored one. A chat begun afresh under the same name (shell-gpt's
    ``temp``) matches nothing: it becomes a conversation of its own, named by
    its first question too."""
    import hashlib

    chat, said = imported.source_id, [t for t in imported.turns if t.role != "system"]
    first = hashlib.sha256(said[0].content.encode()).hexdigest()[:12] if said else ""
    for source_id in (chat, f"{chat}#{first}", f"{chat}#{first}#{imported.created}"):
        imported.source_id = source_id
        before = stored(conversation_id(imported))
        if before is None:
            return
        known = _matched(before, said)
        if known is not None:
            new = said[known:]
            last = moment(before[-1].created)
            for turn in new:
                when = moment(turn.created)
                if last is not None and (when is None or when <= last):
                    turn.created = iso(last + timedelta(milliseconds=1))
                last = moment(turn.created)
            start = len(before)  # turn names stay apart from the stored ones'
            for turn in new:
                turn.source_id, start = f"{turn.source_id}@{start}", start + 1
            imported.turns = new
            return
    imported.turns = []  # matched nothing even under its last name: nothing to add


def _matched(before: list, said: list[ImportedTurn]) -> int | None:
    """How many of ``said`` the stored turns ``before`` end with (the most), None if none do."""
    stored = [(t.role, t.content.strip()) for t in before if t.role != "system"]
    source = [(t.role, t.content.strip()) for t in said]
    for count in range(min(len(stored), len(source)), 0, -1):
        if stored[-count:] == source[:count]:
            return count
    return None
