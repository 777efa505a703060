"""A conversation as one self-contained HTML page (``conv share``): rendered
by rich as it renders on a terminal (Markdown, code highlighted, an imported
tool call's label above its block), recorded and exported with inline
styles, for a white page: no script, no external resource, nothing of the
text ever taken as markup (rich escapes it; raw HTML in Markdown is
dropped), escape and control characters stripped first. Every piece of text
is masked as it will be shown (services.share.Shared.finder)."""

import io
from html import escape

from ..format.words import plural
from ..inert import strip
from .markdown import document
from .sanitize import inert_entities

WIDTH = 100
RULE = "#999999"  # a rule on the white page (rich's default is a bright green meant for dark terminals)
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
    from rich.rule import Rule
    from rich.text import Text

    conv, mask = shared.conv, shared.mask
    console = Console(record=True, file=io.StringIO(), width=WIDTH, force_terminal=True, color_system="truecolor",
                      highlight=False, emoji=False, markup=False)
    title = mask(strip(conv.title or conv.id), "the title")
    console.print(Text(title, style="bold"))
    facts = [conv.id, plural(len(conv.turns), "turn"), mask(strip(conv.going_on_with or ""), "the model"),
             conv.created[:16].replace("T", " ")]
    facts += [f"forked from {shared.parent}"] if shared.parent else []
    console.print(Text(" · ".join(f for f in facts if f), style="dim"))
    for short, fork_title in shared.forks:
        console.print(Text(f"fork: {short}  {mask(strip(fork_title or '(untitled)'), f'fork {short} title')}",
                           style="dim"))
    if conv.summary:  # as conv show puts it, before the turns
        console.print(Rule(Text("summary"), align="left", style=RULE))
        console.print(document(inert_entities(strip(conv.summary)), shared.finder("the summary")))
    for n, turn in enumerate(conv.turns, 1):
        model = f" · {mask(strip(turn.model), f'turn {n} model')}" if turn.model else ""
        console.print(Rule(Text(f"{n}. {turn.role}{model}"), align="left", style=RULE))
        console.print(document(inert_entities(strip(turn.content)), shared.finder(f"turn {n}")))
    warning = ('<div class="warning">Masked before sharing, check them: '
               + "; ".join(escape(line) for line in shared.masked) + "</div>\n") if shared.masked else ""
    template = PAGE.format(title=_literal(escape(title)), warning=_literal(warning))
    return console.export_html(inline_styles=True, code_format=template)


def _literal(text: str) -> str:
    """Text put into the template rich formats once more: its braces doubled."""
    return text.replace("{", "{{").replace("}", "}}")
