"""Running ``conv stats`` once its arguments are parsed, by Typer
(cli/read.py) or by the fast path (run/argv.py ``parse_stats``): Typer's
import alone would be most of its budget at 100,000 conversations."""


def run(given: dict) -> None:
    """``given``: the parameters by the names cli/spec.py gives them (absent: not given)."""
    from ...services.stats import stats
    from ...terminal import stats as view
    from ...terminal import views
    from .workspace import workspace

    found = stats(workspace(), given.get("by") or ["source"], given.get("since", "30d"), given.get("until"),
                  bool(given.get("here")), given.get("source"))
    views.emit(found, bool(given.get("json_out")), view.stats)
