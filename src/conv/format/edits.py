"""What an agent's tool calls did, as a turn keeps it (``edits``,
``commands``; docs/format.md), read so that a hand edit or a foreign file
can break nothing that asks them (``conv blame``, the index).

An edit: ``path`` (the file as the tool named it), ``file`` (relative to the
project's root, or to the folder worked in, when it is under it), ``kind``
(``write``: the whole file written; ``replace``: a span of it replaced;
``patch``: a hunk of a patch; ``delete``), ``before`` and ``after`` (the text
replaced and put there, or the file's whole new text for a write, where
the record holds them), ``tool`` (the tool's name for it), and ``failed``
when the tool said it did not happen. A command: ``command`` (as run),
``tool``, and ``failed`` when it failed."""

KINDS = ("write", "replace", "patch", "delete")
_EDIT_TEXT = ("path", "file", "before", "after", "tool")


def edits_of(value) -> list[dict] | None:
    """A turn's ``edits`` as read: those with a path and a kind conv knows, each field of its type."""
    if not isinstance(value, list):
        return None
    out = []
    for item in value:
        if not isinstance(item, dict) or item.get("kind") not in KINDS or not isinstance(item.get("path"), str):
            continue
        edit = {k: str(item[k]) for k in _EDIT_TEXT if isinstance(item.get(k), str)}
        edit["kind"] = item["kind"]
        if item.get("failed") is True:
            edit["failed"] = True
        out.append(edit)
    return out or None


def commands_of(value) -> list[dict] | None:
    """A turn's ``commands`` as read: those with a command line."""
    if not isinstance(value, list):
        return None
    out = []
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("command"), str):
            continue
        command = {"command": item["command"]}
        if isinstance(item.get("tool"), str):
            command["tool"] = item["tool"]
        if item.get("failed") is True:
            command["failed"] = True
        out.append(command)
    return out or None
