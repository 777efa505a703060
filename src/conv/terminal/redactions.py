"""What redaction would change (``--preview`` of conv share, export and push
--project): each kind with its count and a few samples, before and after, in
the order home/redaction.KINDS names them; keys first, as they refuse."""

from . import render


def report(found) -> None:
    """``found`` (a home/redaction.Report) on stdout: what would be masked."""
    from ..format.words import plural
    from ..home.redaction import KINDS

    if not found.kinds:
        return render.plain("nothing of yours to mask; nothing written")
    total = sum(f.count for f in found.kinds.values())
    render.plain(f"{plural(total, 'mention')} of you or of a key, to be masked (nothing written):")
    for kind in sorted(found.kinds, key=lambda k: (k != "key", KINDS.index(k) if k in KINDS else len(KINDS))):
        kind_found = found.kinds[kind]
        render.plain(f"  {kind:<14} {kind_found.count}")
        for before, after in kind_found.samples:
            render.plain(f"      {before.strip()}\n    → {after.strip()}")
    for line in found.keys:
        render.plain(f"  key: {line}")
