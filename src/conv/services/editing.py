"""``conv edit``: a conversation as one Markdown transcript in $EDITOR; the
turns changed there are committed (their old text stays in history)."""

import os
import shlex
import subprocess

from ..errors import UsageError
from ..format import transcript
from ..format.model import now_iso
from ..home import paths
from ..records import dataclass
from .workspace import Workspace


@dataclass
class Edited:
    conv_id: str
    changed: list[str]
    deleted: list[str]
    title: str | None
    commit: str | None

    def to_dict(self) -> dict:
        return {"conversation": self.conv_id, "changed": self.changed, "deleted": self.deleted,
                "title": self.title, "commit": self.commit}


def edit(ws: Workspace, ref: str | None) -> Edited:
    conv_id = ws.resolve(ref)
    conv = ws.conversation(conv_id)
    original = transcript.render(conv)
    path = paths.edit_file(conv_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(original)
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        code = subprocess.run([*shlex.split(editor), str(path)]).returncode
    except FileNotFoundError:
        raise UsageError(f"editor {editor!r} not found", "Set EDITOR, e.g. export EDITOR=nano") from None
    if code:
        raise UsageError(f"the editor exited with {code}; nothing was changed", f"Your text is kept in {path}")
    data = path.read_bytes()
    try:
        change = transcript.parse(data.decode("utf-8"), conv)
    except UnicodeDecodeError as exc:
        raise UsageError(f"the edited text is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
                         f"Nothing was changed; your text is kept in {path}") from None
    except UsageError as exc:
        raise UsageError(exc.message, f"Nothing was changed; your text is kept in {path}") from None
    if change.unchanged:
        path.unlink()
        return Edited(conv_id, [], [], None, None)

    def apply(draft) -> str:
        for name, content in change.changed.items():
            turn = draft.turn(name)  # as stored now, hand-added keys and all
            turn.content, turn.edited = content, now_iso()
            draft.put(turn)
        for name in change.deleted:
            draft.remove(name)
        if change.title is not None:
            draft.conv.title = change.title
            draft.save_meta()
        what = ([f"{len(change.changed)} changed"] * bool(change.changed)
                + [f"{len(change.deleted)} deleted"] * bool(change.deleted))
        return f"{conv_id}: edit (" + ", ".join(what + ["title"] * (change.title is not None)) + ")"

    written = ws.store.change(conv_id, apply)
    path.unlink()
    ws.index.refresh()
    return Edited(conv_id, sorted(change.changed), change.deleted, change.title, written.new)
