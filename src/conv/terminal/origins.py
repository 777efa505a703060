"""How ``conv blame`` and ``conv origin`` read: a file's lines as git blame
shows them, each with the conversation that wrote it (its short id and the
turn), then what each of those conversations is; a commit's added lines by
the conversation that wrote them, and those none did."""

import os

from ..format.words import plural
from .render import notice, plain

NONE = "-" * 6


def blamed(found) -> None:
    writers: dict = {}
    width = len(str(max((line.number for line in found.lines), default=1)))
    for line in found.lines:
        who = f"{line.by.short} t{line.by.turn:<3}" if line.by else f"{NONE:<11}"
        if line.by:
            writers.setdefault(line.by.conv_id, line.by)
        plain(f"{line.commit[:8]} {who} {line.number:>{width}} │ {line.text}")
    for written in writers.values():
        plain(f"{written.short}  {written.source or 'conv'}  {written.model or '-'}  {written.date}  "
              f"{written.title!r}: conv show {written.short} --turn {written.turn}")
    unwritten = [line for line in found.lines if not line.by]
    if unwritten:
        reasons = sorted({line.how for line in unwritten})
        notice(f"{plural(len(unwritten), 'line')} no conversation wrote ({'; '.join(reasons)})")
    shared = {c for line in found.lines for c in line.others}
    if shared:
        notice(f"the same lines were written in {plural(len(shared), 'other conversation')} too: "
               f"{', '.join(sorted(shared)[:5])} (conv blame --json names them by line)")


def origins(found) -> None:
    for commit in found.commits:
        plain(f"{commit.sha[:10]}  {commit.subject}")
        for written, lines in commit.by:
            plain(f"  {written.short}  {lines}/{commit.added} lines  {written.source or 'conv'}  {written.title!r}")
        if commit.unwritten:
            why = f" ({commit.why})" if commit.why else ""
            plain(f"  {commit.unwritten}/{commit.added} lines written by no conversation{why}")
        if commit.linked:
            unknown = f" ({', '.join(commit.unknown)}: no conversation of this store)" if commit.unknown else ""
            plain(f"  linked by its trailer or conv's note: {', '.join(commit.linked)}{unknown}")
        if not commit.added:
            plain(f"  (it adds no line{f': {commit.why}' if commit.why else ''})")



def linked(done) -> None:
    if done.removed:
        plain(f"{done.hook}: not linked (it was not)" if done.already else
              f"{done.hook}: conv's hook taken out" + (", yours put back" if done.chained else ""))
        return
    plain(f"{done.hook}: {'linked already (rewritten)' if done.already else 'linked'}: each commit gets a "
          f"Conv-Conversation trailer for each conversation whose edits it holds"
          + (f"; yours runs first (kept as {os.path.basename(done.hook)}.before-conv)" if done.chained and done.runs
             else f"; yours is kept as {os.path.basename(done.hook)}.before-conv, not executable: git did not run it, "
                  "nor does conv's" if done.chained else ""))


def staged(ids: list) -> None:
    for conv_id in ids:
        plain(conv_id)
