"""The store read for an agent (``conv mcp``'s tools): search, one
conversation, the recent ones, where code came from (origins.py). Each answer is plain data, capped so that it
never floods the agent's context (what is left out is said, with how to get
it), and masked as conv share masks a page (home/redaction.py, by way of
redacting.py): a secret conv knows of, or what only looks like one, is never
handed to a model, nor the user's home, login, host, e-mail or addresses."""

from ..errors import RefError, UsageError
from ..home.secrets import redacted
from ..index import Filters
from ..inert import strip
from . import browse
from .workspace import Workspace

ORIGIN_MOST = 200  # runs of lines, or commits, one origin answer names at most
SNIPPET_MOST = 300  # characters of a search hit's snippet
TURN_MOST = 4_000  # characters of one turn in show
SHOW_MOST = 24_000  # characters of all the turns show returns
LIST_MOST, SEARCH_MOST = 100, 50  # results at most


def filters(here: str | None = None, source: str | None = None, since: str | None = None, model: str | None = None,
            tag: str | None = None) -> Filters:
    """The filters ``conv search`` takes, from an agent's arguments (``here``:
    a folder of the project meant: its git work tree, or the folder itself
    when it is in none, as an agent's sessions are kept by the folder they ran in)."""
    import os

    from ..home import project

    try:
        found = browse.filters_from(tag=tag, since_text=since, source=source, model=model, flag="")
    except UsageError as exc:  # its hint names a command line: the tool's arguments are said instead
        raise UsageError(exc.message, "check the argument, or leave it out") from None
    if here is not None:
        if not os.path.isabs(here) or not os.path.isdir(here):
            raise UsageError(f"here: {here[:200]!r} is no folder", "give the project's folder as an absolute path")
        found.here = project.root(here) or os.path.realpath(here)
        if found.here == os.path.dirname(found.here) or os.path.expanduser("~").startswith(found.here + os.sep) \
                or found.here == os.path.realpath(os.path.expanduser("~")):
            raise UsageError(f"here: {here[:200]!r} holds every project", "give one project's folder")
    return found


def search(ws: Workspace, text: str, limit: int, chosen: Filters) -> list[dict]:
    hits = browse.search(ws, text.replace("*", " "), min(limit, SEARCH_MOST), chosen).hits
    redactor = _redactor(ws)
    masked = _masking(redactor)
    return [{**masked({**_summary(hit.row, short), "turn": hit.turn, "turn_number": hit.number, "role": hit.role}),
             "snippet": _cut(masked("".join(piece for piece, _ in hit.spans())), SNIPPET_MOST)}
            for hit, short in hits if _seen(hit, redactor)]


def _seen(hit, redactor) -> bool:
    """Whether what the hit matched shows once masked: a search must not tell an
    agent what a masked value holds by finding it (a secret, the user's host, an
    address an octet at a time; prefixes are words here, for the same reason:
    nothing is spelled out a letter at a time)."""
    text, matched, at = "", [], 0
    for piece, hit_here in hit.spans():
        if hit_here:
            matched.append((at, at + len(piece)))
        text += piece
        at += len(piece)
    hidden = redactor.spans(text)
    return any(not any(s <= start and end <= e for s, e, *_ in hidden) for start, end in matched)


def recent(ws: Workspace, limit: int, chosen: Filters) -> list[dict]:
    masked = _masking(_redactor(ws))
    return [masked({**_summary(item.row, item.short), "turns": item.row.turns})
            for item in browse.listing(ws, min(limit, LIST_MOST), chosen)]


def conversation(ws: Workspace, ref: str, last: int | None = None, before: int = 0) -> dict:
    """One conversation's turns: the last ``last`` of those before its last
    ``before`` (or as many of them as fit), each cut to TURN_MOST characters;
    what is left out is said, with how to read it."""
    import json

    if not ref.strip():
        raise RefError("no conversation named", "give an id from search or list")
    conv = ws.conversation(ws.resolve(ref))
    if before and before >= len(conv.turns):
        raise UsageError(f"it has {len(conv.turns)} turns: before must be fewer than that")
    end = len(conv.turns) - before
    turns = conv.turns[max(end - last, 0):end] if last else conv.turns[:end]
    shown, size, masked = [], 0, _masking(_redactor(ws, conv))
    for turn in reversed(turns):
        entry = {**masked({"turn": turn.name, "role": turn.role, "model": turn.model}),
                 "content": _cut(masked(turn.content), TURN_MOST)}  # masked whole, then cut
        size += len(json.dumps(entry))  # as the agent gets it: escapes count
        if shown and size > SHOW_MOST:
            break
        shown.insert(0, entry)
    earlier = end - len(shown)
    out = masked({"id": conv.id, "title": conv.title, "created": conv.created, "source": _source(conv),
                  "project": (conv.imported_from or {}).get("cwd") or (conv.project or {}).get("root")})
    out["turns"] = shown
    if earlier or before:
        out["left_out"] = (f"turns {end - len(shown) + 1} to {end} of {len(conv.turns)} are shown"
                           + (f"; ask with before={len(conv.turns) - earlier} for the earlier ones" if earlier else ""))
    return out


def origin(ws: Workspace, file: str | None = None, lines: str | None = None, commit: str | None = None,
           folder: str | None = None) -> dict:
    """Of a file's lines (``lines``: FIRST-LAST), each run of them one commit and one conversation's turn made;
    or of a commit (a range A..B: each) of the project ``folder`` is in, the conversations that wrote its lines."""
    import os

    from . import origins

    for name, value in (("file", file), ("folder", folder)):
        if value is not None and not os.path.isabs(value):
            raise UsageError(f"{name}: {value!r} is no absolute path", f"give the {name} as an absolute path")
    if (file is None) == (commit is None):
        raise UsageError("give a file (and lines) or a commit", "e.g. file=/abs/path.py lines=10-20, or commit=HEAD")
    if file is not None:
        if folder is not None:
            raise UsageError("folder goes with commit", "give the file alone: its project is the one it is in")
        _, first, last = origins.file_and_lines(f"{file}:{lines}") if lines else (file, None, None)
        found = origins.blame(ws, file, first, last)
        runs: list[dict] = []
        for line in found.lines:
            who = line.by.to_dict() if line.by else None
            if runs and (runs[-1]["commit"], runs[-1]["conversation"], runs[-1]["how"]) == (line.commit, who, line.how):
                runs[-1]["to"] = line.number
            else:
                runs.append({"from": line.number, "to": line.number, "commit": line.commit, "conversation": who,
                             "how": line.how})
        masked = _masking(_redactor(ws, keep=(found.root,)))  # the agent's own project, as it named it
        return masked({"file": found.file, "root": found.root, "runs": runs[:ORIGIN_MOST],
                       **({"left_out": f"{len(runs) - ORIGIN_MOST} more runs: ask for fewer lines"}
                          if len(runs) > ORIGIN_MOST else {})})
    if folder is not None and not os.path.isdir(folder):
        raise UsageError(f"folder: {folder!r} is no folder", "give the project's folder as an absolute path")
    found = origins.origin(ws, commit, folder)
    data = found.to_dict()
    masked = _masking(_redactor(ws, keep=(data.get("root") or "",)))
    return masked({**data, "commits": data["commits"][-ORIGIN_MOST:],
                   **({"left_out": f"the first {len(data['commits']) - ORIGIN_MOST} commits: ask a shorter range"}
                      if len(data["commits"]) > ORIGIN_MOST else {})})


def _summary(row, short: str) -> dict:
    return {"id": row.id, "short": short, "title": row.title, "date": row.updated, "source": row.source or "conv",
            "project": row.project, "model": row.model}


def _source(conv) -> str:
    return (conv.imported_from or {}).get("source") or "conv"


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most] + f"… [{len(text) - most:,} more characters]"


def _redactor(ws: Workspace, conv=None, keep: tuple[str, ...] = ()):
    """What gives the user away, masked as conv share masks it, ``conv``'s project root too, its placeholders
    numbered through one answer; ``keep`` (the folder the agent asked about) left whole."""
    from .redacting import Redacting

    return Redacting(ws).of(conv, keep)


def _masking(redactor):
    """A masker of data (texts, lists, mappings): what would act on a terminal taken out (an agent may print
    it), then ``redactor``'s masking."""
    return lambda data: redacted(data, strip, redactor)
