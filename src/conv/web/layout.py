"""The frame every page of ``conv serve`` has: its head (its stylesheets
and the one script, nothing inline), the navigation, and the small pieces
pages share (a conversation's facts, a link, a number)."""

from html import escape
from urllib.parse import urlencode

from .markup import text

NAV = (("./", "Conversations"), ("stats", "Stats"))  # relative: every page is under its server's own path


def page(title: str, main: str, here: str = "./") -> str:
    """A whole page; ``main`` is already HTML (every text in it escaped by its maker)."""
    nav = "".join(f'<a href="{href}"{" class=here" if href == here else ""}>{escape(name)}</a>'
                  for href, name in NAV)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width\"><meta name=\"referrer\" content=\"no-referrer\">"
            "<link rel=\"icon\" href=\"data:,\">"  # no /favicon.ico asked for, outside the server's own path
            f"<title>{text(title)} · conv</title><link rel=\"stylesheet\" href=\"static/conv.css\">"
            "<link rel=\"stylesheet\" href=\"static/code.css\">"
            "<script src=\"static/conv.js\" defer></script></head>"
            f"<body><header><strong>conv</strong> <nav>{nav}</nav></header>"
            f"<main id=\"main\">{main}</main></body></html>\n")


def href(path: str, **query) -> str:
    """A link of the viewer's own, its query the values given (empty ones left out), escaped for an attribute."""
    kept = {k: v for k, v in query.items() if v not in (None, "", False)}
    return escape(path + ("?" + urlencode(kept) if kept else ""), quote=True)


def tokens(n: int | None) -> str:
    if not n:
        return "0"
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.1f}k" if n >= 1e3 else str(n)


def dollars(cost: float | None) -> str:
    return "-" if cost is None else f"${cost:.4f}" if cost < 1 else f"${cost:,.2f}"


def when(iso: str) -> str:
    return text(iso[:16].replace("T", " ")) if iso else ""


def command(line: str) -> str:
    """A command line to copy (shown, never run)."""
    return f'<code class="command">{text(line)}</code>'
