"""``conv models``: which model answers, and why (the chain in providers/choice.py)."""

from typing import Annotated

import typer

from .app import app


@app.command(rich_help_panel="Ask", epilog="Examples:\n\n  conv models\n\n  conv models --json")
def models(
    json_out: Annotated[bool, typer.Option("--json", help="The chain, agents and prices as JSON.")] = False,
) -> None:
    """Show how conv picks a model: -m, the agent, CONV_MODEL, config, API keys,
    Ollama on 127.0.0.1:11434, the local model. The first that names one answers."""
    from ..home.config import Config
    from ..providers.choice import report
    from ..terminal import render

    config = Config()
    steps, chosen = report(config)
    agents = {name: config.get(f"agents.{name}.model") for name in config.names("agents")}
    prices = {name: {side: config.get(f"prices.{name}.{side}") for side in ("input", "output")}
              for name in config.names("prices")}
    if json_out:
        return render.emit_json({
            "chain": [{"step": s.source, "model": s.spec, "detail": s.detail, "chosen": n == chosen}
                      for n, s in enumerate(steps)],
            "agents": agents, "prices": prices,
        })
    rows = [["→" if n == chosen else "", s.source, s.spec or "-", s.detail] for n, s in enumerate(steps)]
    render.table(["", "STEP", "MODEL", "NOTE"], rows)
    if chosen is None:
        render.notice("no model is set up: pip install 'conv-git[local]', or export OPENAI_API_KEY or ANTHROPIC_API_KEY")
    if agents:
        render.plain("\nagents (conv ask -a NAME): " + ", ".join(f"{a} ({m or 'the chain'})" for a, m in agents.items()))
    if prices:
        render.plain("prices per million tokens: " + ", ".join(
            f"{m} in ${p['input'] or 0:g} out ${p['output'] or 0:g}" for m, p in prices.items()))
