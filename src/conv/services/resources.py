"""Conversations as MCP resources (``conv mcp``): what a client lists in its
``@`` menu (the newest conversations, those of the client's project first,
and ``conv://current``, the conversation of the terminal the agent was
started in: what Alt-F follows up there) and what reading one gives: the
conversation as Markdown, its newest turns as show's tool gives them (capped,
the cut said), masked as conv share masks a page (recall.py, home/redaction.py)."""

from ..errors import RefError
from ..index import Filters
from ..inert import strip
from . import recall
from .current import current
from .redacting import Redacting
from .workspace import Workspace

LISTED_MOST = 50
CURRENT = "conv://current"
MIME = "text/markdown"


def store_head() -> str | None:
    """The store's head commit, read afresh (conv mcp's watcher, in a thread of its own: no workspace)."""
    from ..store import Store

    return Store().head()


def listed(ws: Workspace, folder: str | None) -> list[dict]:
    """``conv://current`` (when this terminal has one), then the newest conversations, those of ``folder``'s
    project first, 50 at most; each named by its title, described by its source, project, date and turns."""
    from ..home import project

    index = ws.index.refresh()
    root = project.root(folder) if folder else None
    rows = index.recent(LISTED_MOST, Filters(here=root)) if root else []
    seen = {r.id for r in rows}
    rows += [r for r in index.recent(LISTED_MOST) if r.id not in seen][:LISTED_MOST - len(rows)]
    redactor = Redacting(ws).of(None)
    now = current(ws).conv_id
    out = [_entry(CURRENT, index.get(now), redactor, "this terminal's conversation: ")] if now and index.get(now) \
        else []
    return out + [_entry(f"conv://{r.id}", r, redactor) for r in rows]


def read(ws: Workspace, uri: str) -> dict:
    """The resource ``uri`` names: its text, as Markdown. RefError when it names none."""
    if not uri.startswith("conv://") or len(uri) > 200:
        raise RefError(f"{uri[:200]!r} is no conv resource", "use conv://ID or conv://current")
    ref = uri[len("conv://"):]
    if ref == "current":
        ref = current(ws).conv_id or ""
        if not ref:
            raise RefError("this terminal has no current conversation", "list the resources for the others")
    shown = recall.conversation(ws, ref)  # masked
    conv = ws.conversation(shown["id"])
    head = [f"# {shown['title'] or shown['id']}", "",
            " · ".join(str(v) for v in (shown["source"], shown["project"], shown["created"], f"id {shown['id']}")
                       if v)]
    if shown.get("left_out"):  # the show tool reads the rest (a resource takes no arguments)
        head += ["", f"({shown['left_out'].replace('ask with before=', 'the show tool gives them with before=')})"]
    number = {turn.name: n for n, turn in enumerate(conv.turns, 1)}  # as conv show numbers them
    turns = [f"## {number[t['turn']]}. {t['role']}" + (f" · {t['model']}" if t["model"] else "")
             + f"\n\n{t['content']}" for t in shown["turns"]]
    return {"uri": uri, "mimeType": MIME, "text": "\n".join(head) + "\n\n" + "\n\n".join(turns) + "\n"}


def _entry(uri: str, row, redactor, said: str = "") -> dict:
    described = " · ".join(v for v in (row.source or "conv", row.project, (row.updated or "")[:10],
                                       f"{row.turns} turns") if v)
    return {"uri": uri, "name": row.id, "title": redactor(strip(row.title or row.id)),
            "description": redactor(strip(said + described)), "mimeType": MIME}
