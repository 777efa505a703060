"""The figures of ``conv stats`` as charts: tokens (in their classes) and
cost by week, and by project and by source, as SVG bars drawn here (no
script, no library); the numbers beside them are services/stats.py's."""

from html import escape

from ..errors import ConvError
from ..services.stats import TOKENS, stats
from .layout import dollars, href, page, tokens
from .markup import text

CLASSES = (("prompt_tokens", "input", "#4e79a7"), ("cache_write_tokens", "cache write", "#f28e2b"),
           ("cache_read_tokens", "cache read", "#76b7b2"), ("completion_tokens", "output", "#e15759"))
SPANS = ("7d", "30d", "90d", "365d")


def stats_page(ws, query: dict) -> str:
    span = query.get("since") or "30d"  # as conv stats; a span it refuses is said as it says it
    links = " ".join(f'<a href="{href("stats", since=s)}"{" class=here" if s == span else ""}>{s}</a>'
                     for s in SPANS)
    try:
        charts = "".join(f"<h2>By {by}</h2>{_chart(stats(ws, [by], since=span), by)}"
                         for by in ("week", "project", "source"))
    except ConvError as exc:
        charts = f'<p class="error">{text(exc.message)}</p>'
    legend = "".join(f'<span class=key><svg width="10" height="10"><rect width="10" height="10" fill="{c}"/></svg> '
                     f"{name}</span> " for _, name, c in CLASSES)
    return page("Stats", f"<h1>What the work cost</h1><p>Since: {links}</p><p>{legend}</p>{charts}", "stats")


def _chart(found, by: str) -> str:
    groups = found.groups[:60]
    if not groups:
        return "<p>No answer with usage in this span.</p>"
    most = max(sum(g.tokens[k] for k in TOKENS[:4]) for g in groups) or 1
    rows = "".join(
        f"<tr><td>{text(group.keys.get(by) or '(none)')}</td><td>{_bar(group.tokens, most)}</td>"
        f"<td class=n>{tokens(sum(group.tokens[k] for k in TOKENS[:4]))}</td>"
        f"<td class=n>{dollars(group.cost)}{'+?' if group.unpriced else ''}</td></tr>" for group in groups)
    return (f"<table class=chart><thead><tr><th>{escape(by)}</th><th></th><th>tokens</th><th>cost</th></tr>"
            f"</thead><tbody>{rows}</tbody></table>")


def _bar(counts: dict, most: int, width: int = 420) -> str:
    """One group's tokens as a bar of its classes, the longest bar of the chart ``width`` wide."""
    x, parts = 0.0, []
    for key, name, colour in CLASSES:
        w = width * counts[key] / most
        if w > 0:
            parts.append(f'<rect x="{x:.1f}" width="{w:.1f}" height="14" fill="{colour}"><title>{name}: '
                         f"{tokens(counts[key])}</title></rect>")
        x += w
    return f'<svg width="{width}" height="14" role="img">{"".join(parts)}</svg>'
