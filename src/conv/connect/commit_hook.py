"""``conv origin --link``: a ``prepare-commit-msg`` hook in a project's own
repository that adds a ``Conv-Conversation: ID`` trailer (git's trailer
format, written by ``git interpret-trailers``) for each conversation whose
edits the staged changes hold, and none when no conversation wrote them. A
hook the user had is chained, not replaced: it is renamed beside (``.before-
conv``), run first with the same arguments, and renamed back by ``--unlink``,
its bytes and mode untouched."""

import os
import re
import shlex

from ..errors import ConvError
from ..records import dataclass
from .commands import home, program

HOOK = "prepare-commit-msg"
CHAINED = f"{HOOK}.before-conv"
_SCRIPT = """#!/bin/sh
# conv origin --link: a Conv-Conversation trailer for each conversation whose edits the staged changes
# hold (conv origin --unlink takes this hook out and puts back the one it chained).
chained="$(dirname "$0")/{chained}"
if [ -x "$chained" ]; then
    "$chained" "$@" || exit $?
fi
[ "$2" = merge ] && exit 0
for id in $({command} origin --staged 2>/dev/null); do
    git interpret-trailers --in-place --if-exists addIfDifferent --trailer "Conv-Conversation: $id" "$1" || exit 0
done
exit 0
"""
_OURS = re.compile(re.escape(_SCRIPT).replace(re.escape("{chained}"), re.escape(CHAINED))
                   .replace(re.escape("{command}"), "[^\n]+"))


@dataclass
class Linked:
    hook: str  # the hook's path
    chained: bool  # a hook of the user's runs first (linking) / was put back (unlinking)
    already: bool = False  # it was so already
    removed: bool = False  # unlinking
    runs: bool = True  # the hook chained is executable (git would not run it otherwise, nor does conv's)

    def to_dict(self) -> dict:
        return {"hook": self.hook, "linked": not self.removed, "chained": self.chained, "already": self.already}


def script() -> str:
    command = " ".join(shlex.quote(part) for part in
                       [*(["env", *(f"{k}={v}" for k, v in home().items())] if home() else []), *program()])
    return _SCRIPT.format(chained=CHAINED, command=command)


def link(hooks: str, shared: bool = False) -> Linked:
    """conv's hook in the ``hooks`` folder (the user's, if any, chained); ``shared``: a folder core.hooksPath
    names (other repositories', or tracked in this one) is refused: the hook names this machine's conv."""
    if shared:
        raise ConvError(f"core.hooksPath names {hooks}, a hooks folder beyond this repository's own "
                        "(other repositories use it, or it is tracked)",
                        "Add to the prepare-commit-msg there what conv's does: conv origin --staged prints the "
                        "ids, git interpret-trailers adds them")
    hook, chained = os.path.join(hooks, HOOK), os.path.join(hooks, CHAINED)
    was = _read(hook)
    if was is not None and not _OURS.fullmatch(was):
        if os.path.lexists(chained):
            raise ConvError(f"{chained} is there already, and {hook} is not conv's",
                            f"Move one of them away (conv chains your hook as {CHAINED}), then link again")
        _os(os.replace, hook, chained)
    _write(hook, script())
    return Linked(hook, os.path.lexists(chained), already=was is not None and _OURS.fullmatch(was) is not None,
                  runs=os.access(chained, os.X_OK))


def unlink(hooks: str) -> Linked:
    """conv's hook out of ``hooks``, and the user's it chained back in its place."""
    hook, chained = os.path.join(hooks, HOOK), os.path.join(hooks, CHAINED)
    was = _read(hook)
    if was is None or not _OURS.fullmatch(was):
        if was is not None and os.path.lexists(chained):  # conv's, changed since: neither conv's nor yours
            raise ConvError(f"{hook} is not conv's as conv wrote it (changed since, or another hook)",
                            f"Edit it by hand; conv chained your own hook as {CHAINED}")
        return Linked(hook, False, already=True, removed=True)  # none there, or the user's own: not conv's
    back = os.path.lexists(chained)
    if back:
        _os(os.replace, chained, hook)
    else:
        _os(os.unlink, hook)
    return Linked(hook, back, removed=True)


def _read(path: str) -> str | None:
    if not os.path.lexists(path):
        return None
    try:
        with open(path, "rb") as found:
            return found.read(1 << 16).decode("utf-8", "replace")
    except OSError:
        return ""  # a dangling link, a folder: not conv's


def _write(path: str, text: str) -> None:
    tmp = f"{path}.conv-{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise ConvError(f"cannot write {path}: {exc.strerror or exc}", "Make the hooks folder writable") from None


def _os(call, *paths: str) -> None:
    try:
        call(*paths)
    except OSError as exc:
        raise ConvError(f"cannot change {paths[0]}: {exc.strerror or exc}", "Make the hooks folder writable") \
            from None
