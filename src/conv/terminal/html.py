"""A conversation as one self-contained HTML page (``conv share``): rendered
by rich as it renders on a terminal (Markdown, code highlighted), recorded
and exported with inline styles: no script, no external resource, nothing
of the text ever taken as markup (rich escapes it; raw HTML in Markdown is
dropped), escape and control characters stripped first."""

import io
from html import escape

from ..inert import strip
from .sanitize import inert_entities

WIDTH = 100
# formatted twice: here (title, warning), then by rich (code, colours): CSS braces are written four times
PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta name="viewport" content="width=device-width">
<title>{title}</title>
<style>
body {{{{ color: {{foreground}}; background-color: {{background}}; margin: 2em; }}}}
.warning {{{{ font-family: sans-serif; border: 2px solid #b00; padding: 0.5em 1em; color: #b00; }}}}
{{stylesheet}}
</style>
</head>
<body>
{warning}<pre style="font-family:Menlo,'DejaVu Sans Mono',consolas,'Courier New',monospace">\
<code style="font-family:inherit">{{code}}</code></pre>
</body>
</html>
"""


def page(shared) -> str:
    """The page for a services.share.Shared."""
    from rich.console import Console
    from rich.markdown import Markdown
    from rich.rule import Rule
    from rich.text import Text

    conv = shared.conv
    console = Console(record=True, file=io.StringIO(), width=WIDTH, force_terminal=True, color_system="truecolor")
    console.print(Text(strip(conv.title or conv.id), style="bold"))
    facts = [conv.id, f"{len(conv.turns)} turns", conv.model or "", conv.created[:16].replace("T", " ")]
    facts += [f"forked from {shared.parent}"] if shared.parent else []
    console.print(Text(" · ".join(f for f in facts if f), style="dim"))
    for short, title in shared.forks:
        console.print(Text(f"fork: {short}  {strip(title or '(untitled)')}", style="dim"))
    for n, turn in enumerate(conv.turns, 1):
        console.print(Rule(strip(f"{n}. {turn.role}" + (f" · {turn.model}" if turn.model else "")), align="left"))
        console.print(Markdown(inert_entities(strip(turn.content)), hyperlinks=False))  # no link: not even javascript:
    warning = ('<div class="warning">Masked before sharing, check them: '
               + "; ".join(escape(line) for line in shared.masked) + "</div>\n") if shared.masked else ""
    template = PAGE.format(title=_literal(escape(strip(conv.title or conv.id))), warning=_literal(warning))
    return console.export_html(inline_styles=True, code_format=template)


def _literal(text: str) -> str:
    """Text put into the template rich formats once more: its braces doubled."""
    return text.replace("{", "{{").replace("}", "}}")
