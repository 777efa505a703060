"""A turn's Markdown as HTML that runs nothing and fetches nothing:
markdown-it-py (CommonMark and tables; raw HTML in the text escaped, never
passed through; a link to ``javascript:`` and the like left as text) with
code highlighted by pygments (both are rich's own dependencies); an image is
a link, never loaded; an imported agent's tool call or result (a fenced
block labelled ``tool call: NAME``) is folded, its label shown. The text is
masked (as conv share masks it) and stripped of what acts on a terminal
before it is parsed."""

from functools import lru_cache
from html import escape

from ..home.secrets import outward
from ..inert import strip

FOLDED = ("tool call", "tool result")  # fenced blocks' labels that are folded


def plain(value) -> str:
    """Any text of the store (a title, a model's name, a file's) as it is shown: masked, inert."""
    return outward(strip(str(value))) if value else ""


def text(value) -> str:
    """The same as HTML, escaped."""
    return escape(plain(value), quote=True)


def markdown(source: str) -> str:
    return _parser().render(outward(strip(source or "")))


@lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")
    md.add_render_rule("fence", _fence)
    md.add_render_rule("image", _image)
    md.add_render_rule("link_open", _link_open)
    return md


def _fence(renderer, tokens, idx, options, env) -> str:
    token = tokens[idx]
    label = token.info.strip()
    body = _highlighted(token.content, label.split()[0] if label else "")
    if label.startswith(FOLDED):
        return f'<details class="tool"><summary>{escape(label)}</summary>{body}</details>\n'
    return body


def _highlighted(code: str, language: str) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(language) if language else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        return f'<pre class="code"><code>{escape(code)}</code></pre>\n'
    return highlight(code, lexer, HtmlFormatter(cssclass="code highlight", nowrap=False))


def _image(renderer, tokens, idx, options, env) -> str:
    """An image as a link to it (never loaded: a page of the viewer fetches nothing from elsewhere)."""
    token = tokens[idx]
    alt = "".join(child.content for child in token.children or ())
    return f'[image: {escape(alt)}] <code>{escape(token.attrGet("src") or "")}</code>'


def _link_open(renderer, tokens, idx, options, env) -> str:
    token = tokens[idx]
    token.attrSet("rel", "noopener noreferrer nofollow")
    token.attrSet("target", "_blank")
    return renderer.renderToken(tokens, idx, options, env)


def stylesheet() -> str:
    """pygments' colours for the ``highlight`` class, for static/conv.css's companion."""
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(style="default").get_style_defs(".highlight")
