"""What no other viewer has: a conversation's versions from git (``conv
log`` as a timeline, each version diffable with the one before it), its
forks as a tree (the one it was forked from, those forked from it and
theirs) with the retries it holds, and the diff between two versions or two
conversations (``conv diff``), rendered."""

from html import escape

from ..services import diffing, history
from .layout import href, page, when
from .markup import markdown, text


def versions(ws, conv_id: str) -> str:
    log = history.log(ws, conv_id)
    rows = ws.index.refresh().family(conv_id)
    title = next((r.title for r in rows if r.id == conv_id), conv_id)
    events = log.events
    timeline = "".join(
        f'<li><code>{escape(e.sha[:8])}</code> {when(_iso(e.time))} {text(e.message)}'
        + (f' · <a href="{href(f"c/{conv_id}/diff", rev=f"{events[n + 1].sha[:12]}..{e.sha[:12]}")}">diff</a>'
           if n + 1 < len(events) else "") + "</li>" for n, e in enumerate(events))
    conv = ws.conversation(conv_id)
    retries = [t for t in conv.turns if t.replaces]
    body = (f'<h1>{text(title)}</h1><p><a href="c/{escape(conv_id)}">back to the conversation</a></p>'
            f"<h2>Versions</h2><ol class=timeline>{timeline}</ol>"
            f"<h2>Forks</h2>{_tree(rows, conv_id)}"
            + (("<h2>Retries</h2><ul>" + "".join(f"<li>{text(t.name)} replaces {text(t.replaces)}</li>"
                                                  for t in retries) + "</ul>") if retries else ""))
    return page(f"{title}: versions", body)


def diff(ws, conv_id: str, query: dict) -> str:
    other = query.get("with", "")
    found = history.diff_conversations(ws, conv_id, other) if other else \
        history.diff_versions(ws, conv_id, query.get("rev") or None)
    data = diffing.to_dict(found)
    pairs = "".join(_pair(pair) for pair in data["turns"])
    shared = f"<p class=facts>{data['shared']} turns the same first</p>" if data["shared"] else ""
    body = (f'<h1>{text(data["a"])} → {text(data["b"])}</h1>'
            f'<p><a href="c/{escape(conv_id)}/versions">back to the versions</a></p>{shared}'
            f'<div class=diff>{pairs if pairs else "<p>No difference.</p>"}</div>')
    return page("diff", body)


def _pair(pair: dict) -> str:
    kind = {"same": "same", "changed": "changed", "only_a": "removed", "only_b": "added"}.get(pair["kind"], "")
    where = " / ".join(f"#{p}" for p in (pair["position_a"], pair["position_b"]) if p)
    sides = "".join(f'<div class="side {side}">{markdown(pair[f"{side}_text"]) if pair[f"{side}_text"] else ""}</div>'
                    for side in ("a", "b"))
    return (f'<section class="pair {kind}"><div class=label>{text(pair["role"])} {where}: {kind}</div>'
            f"{sides}</section>")


def _tree(rows: list, conv_id: str) -> str:
    """The fork it came from, itself and every fork under it (each once, however forks name each other)."""
    by_id = {r.id: r for r in rows}
    children: dict = {}
    for r in rows:
        if r.forked_from:
            children.setdefault(r.forked_from, []).append(r)
    root, seen = conv_id, {conv_id}
    while by_id.get(root) and by_id[root].forked_from in by_id and by_id[root].forked_from not in seen:
        root = by_id[root].forked_from
        seen.add(root)

    def node(at: str, done: set) -> str:
        if at in done or at not in by_id:
            return ""
        done.add(at)
        label = text(by_id[at].title or at)
        here = f"<strong>{label}</strong>" if at == conv_id else f'<a href="c/{escape(at)}">{label}</a>'
        compare = "" if at == conv_id else f' · <a href="{href(f"c/{conv_id}/diff", **{"with": at})}">diff</a>'
        kids = "".join(node(c.id, done) for c in children.get(at, []))
        return f"<li>{here}{compare}{f'<ul>{kids}</ul>' if kids else ''}</li>"

    return f"<ul class=tree>{node(root, set())}</ul>"


def _iso(seconds) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(seconds, timezone.utc).isoformat() if isinstance(seconds, (int, float)) else ""
