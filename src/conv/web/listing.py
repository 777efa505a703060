"""Every conversation, newest first, with its filters (source, project,
model, tag, status, dates) and pages that stay fast at 100,000 (each page
goes on after the last row of the one before, never counting past it); and
search, the same query path and ranking as ``conv search``, as a page and
as the JSON the search box asks for as you type."""

from html import escape

from ..errors import ConvError
from ..format.model import STATUSES
from ..services import browse
from ..services.tools import NAMES
from .layout import dollars, href, page, tokens, when
from .markup import plain, text

PAGE = 50  # conversations a page
HITS = 30  # search hits a page
FILTERS = ("q", "source", "project", "model", "tag", "status", "since", "until")


def conversations(ws, query: dict) -> str:
    asked = {k: query.get(k, "") for k in FILTERS}
    try:
        chosen = _filters(asked)
        body = _hits(ws, asked, chosen) if asked["q"].strip() else _rows(ws, asked, chosen, query.get("after", ""))
    except ConvError as exc:
        body = f'<p class="error">{text(exc.message)}</p>'
    return page("Conversations", _form(asked) + f'<div id="results" data-live>{body}</div>')


def search_data(ws, query: dict) -> dict:
    """The search box's answer: hits as plain data (the script puts them on the page as text)."""
    asked = {k: query.get(k, "") for k in FILTERS}
    if not asked["q"].strip():
        return {"hits": []}
    found = browse.search(ws, asked["q"], HITS, _filters(asked))
    return {"hits": [{"id": hit.row.id, "short": short, "title": plain(hit.row.title or hit.row.id),
                      "source": hit.row.source or "conv", "turn": hit.number, "updated": hit.row.updated[:10],
                      "snippet": [[plain(piece), matched] for piece, matched in hit.spans()]}
                     for hit, short in found.hits]}


def _filters(asked: dict):
    import os

    project = asked["project"].strip()
    found = browse.filters_from(tag=asked["tag"] or None, since_text=asked["since"] or None,
                                status=asked["status"] or None, source=asked["source"] or None,
                                model=asked["model"] or None)
    found.here = os.path.realpath(os.path.expanduser(project)) if project else None
    found.until = browse.since(asked["until"], "until") if asked["until"] else None
    if found.since and found.until and found.since >= found.until:
        raise ConvError(f"since {asked['since']!r} is not before until {asked['until']!r}",
                         "give an earlier since or a later until")
    return found


def _form(asked: dict) -> str:
    def options(values, chosen):
        return "".join(f'<option{" selected" if v == chosen else ""}>{escape(v)}</option>' for v in ("", *values))

    def field(name, label, kind="text"):
        return (f'<label>{label} <input type="{kind}" name="{name}" value="{text(asked[name])}"'
                f'{" id=q autocomplete=off" if name == "q" else ""}></label>')

    return (f'<form class="filters" method="get" action="./">{field("q", "Search")}'
            f'<label>Source <select name="source">{options(NAMES, asked["source"])}</select></label>'
            f'{field("project", "Project")}{field("model", "Model")}{field("tag", "Tag")}'
            f'<label>Status <select name="status">{options(STATUSES, asked["status"])}</select></label>'
            f'{field("since", "Since", "date")}{field("until", "Until", "date")}<button>Filter</button></form>')


def _rows(ws, asked: dict, chosen, after: str) -> str:
    updated, _, last_id = after.partition("|")
    listed = browse.listing(ws, PAGE + 1, chosen, after=(updated, last_id) if last_id else None)
    more, listed = len(listed) > PAGE, listed[:PAGE]
    if not listed:
        return "<p>No conversation matches.</p>" if any(asked.values()) or after else \
            '<p>No conversations yet: <code class="command">conv ask "…"</code></p>'
    rows = "".join(
        f'<tr><td><a href="c/{escape(item.row.id)}">{text(item.row.title or "(untitled)")}</a>'
        f'{"".join(f" <span class=tag>{text(tag)}</span>" for tag in item.row.tags)}</td>'
        f'<td>{text(item.row.source or "conv")}</td><td>{text(_short_path(item.row.project))}</td>'
        f'<td>{text(item.row.model or "")}</td><td class=n>{item.row.turns}</td>'
        f'<td class=n>{tokens(item.row.tokens)}</td><td class=n>{dollars(item.row.cost)}</td>'
        f'<td>{text(item.row.status)}</td><td>{when(item.row.updated)}</td></tr>' for item in listed)
    last = listed[-1].row
    older = f'<p><a class="more" href="{href("./", **asked, after=f"{last.updated}|{last.id}")}">Older</a></p>' \
        if more else ""
    return ("<table class=list><thead><tr><th>Title</th><th>Source</th><th>Project</th><th>Model</th>"
            "<th>Turns</th><th>Tokens</th><th>Cost</th><th>Status</th><th>Updated</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>{older}")


def _hits(ws, asked: dict, chosen) -> str:
    found = browse.search(ws, asked["q"], HITS, chosen)
    if not found.hits:
        return "<p>Nothing found.</p>"
    return "<ol class=hits>" + "".join(
        f'<li><a href="c/{escape(hit.row.id)}#turn-{hit.number}">{text(hit.row.title or hit.row.id)}</a> '
        f'<span class=facts>{text(hit.row.source or "conv")} · turn {hit.number} · {when(hit.row.updated)}</span>'
        f'<p class=snippet>{"".join(f"<mark>{text(p)}</mark>" if m else text(p) for p, m in hit.spans())}</p></li>'
        for hit, _ in found.hits) + "</ol>"


def _short_path(path: str | None) -> str:
    import os

    if not path:
        return ""
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if path.startswith(home + "/") else path
