"""A coding agent's session file whose records name the one before them
(``uuid`` and a parent: Claude Code, Qwen Code, pi), as conversations: the
first line of the tree is the conversation, each line a rewind or a branch
began is a fork from where it went back (branches.py). Records that are no
message (the tool's own bookkeeping) are passed over on the way to a
message's parent."""

from collections.abc import Callable

from ..format.words import plural
from . import ImportedConversation, shared_prefix
from .branches import lines, said_of


def forks(source: str, records: list[dict], is_message: Callable[[dict], bool],
          parent: Callable[[dict], str | None], turns_of: Callable[[list[dict]], list], file,
          session_id: str, title: str = "", origin: dict | None = None) -> list[ImportedConversation]:
    """The conversation and its forks of one session's ``records`` (each
    with a ``uuid``; ``parent`` names the one before it): ``is_message`` says
    which are messages, ``turns_of`` makes the turns of one line's messages.
    A line whose turns another line holds is left out and said; so are
    records that reuse an earlier record's uuid with other content."""
    by_uuid, reused = {}, 0
    for r in records:  # a uuid is its first record's: a later one that says otherwise is left out, counted
        if r.get("uuid") and by_uuid.setdefault(r["uuid"], r) is not r and by_uuid[r["uuid"]] != r:
            reused += 1
    messages = [r for r in records if r.get("uuid") and is_message(r) and by_uuid[r["uuid"]] is r]
    kept = {r["uuid"] for r in messages}
    found = lines({r["uuid"]: _message_parent(r, by_uuid, kept, parent) for r in messages},
                  [r["uuid"] for r in messages])
    made = [(name, turns) for end, name in found.ends
            if (turns := turns_of([by_uuid[uuid] for uuid in found.path(end)]))]
    if not any(turn.role == "user" for _, turns in made for turn in turns):
        return []  # nobody typed anything: no conversation
    empty = [n for n, (_, turns) in enumerate(made) if any(  # a line all of whose turns another holds
        len(other) > len(turns) and shared_prefix(turns, other) >= len(turns) for _, other in made)]
    asked_nothing = [n for n, (_, turns) in enumerate(made) if n not in empty
                     and not any(turn.role == "user" for turn in turns)]  # an answer cut off by a parent loop
    made = [line for n, line in enumerate(made) if n not in empty and n not in asked_nothing]
    made[0] = ("", made[0][1])  # the first line left is the conversation
    main_turns = made[0][1]
    model = next((t.model for t in reversed(main_turns) if t.model), None)
    out = [ImportedConversation(
        source=source, source_id=f"{session_id}#{name}" if name else session_id, title=title,
        created=turns[0].created if turns else None, model=model, turns=turns,
        fork_of=session_id if name else None, fork_at=shared_prefix(main_turns, turns) if name else None,
        origin=origin or {}) for name, turns in made]
    out[0].skipped += said_of(found, f"session {session_id}")
    if empty:
        out[0].skipped.append(f"{plural(len(empty), 'line')} of session {session_id} in {file} held no turn of "
                              "its own (an empty or unreadable message): left out")
    if asked_nothing:
        out[0].skipped.append(f"{plural(len(asked_nothing), 'line')} of session {session_id} in {file} hold "
                              "answers to no question (cut off by a parent that loops): left out")
    if reused:
        out[0].skipped.append(f"{plural(reused, 'record')} of {file} reuse an earlier record's "
                              "uuid with other content: left out, the first kept")
    return out


def _message_parent(r: dict, by_uuid: dict, messages: set, parent: Callable) -> str | None:
    """The nearest earlier message, passing over records that are none."""
    seen = {r["uuid"]}  # a record that names itself as its parent has none
    at = parent(r)
    while at in by_uuid and at not in messages and at not in seen:
        seen.add(at)
        at = parent(by_uuid[at])
    return at if at in messages and at not in seen else None
