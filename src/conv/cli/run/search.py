"""Running ``conv search`` once its arguments are parsed, by Typer (cli/read.py)
or by the fast path (run/argv.py ``parse_search``): importing Typer is a
third of a search's time at 100,000 conversations."""


def run(given: dict) -> None:
    """``given``: the parameters by the names cli/spec.py gives them (absent: not given)."""
    from ...services import browse
    from ...terminal import views
    from .workspace import workspace

    text = " ".join(given["text"])
    filters = browse.filters_from(given.get("agent"), given.get("tag"), given.get("since"), given.get("status"),
                                  here=bool(given.get("here")), source=given.get("source"), model=given.get("model"))
    said = " ".join(f"--{name} {value}" if value is not True else f"--{name}" for name, value in
                    ((k, given.get(k)) for k in ("agent", "tag", "since", "status", "here", "source", "model"))
                    if value)
    found = browse.search(workspace(), text, given.get("limit", 20), filters, said)
    views.emit(found, bool(given.get("json_out")), views.search, data=lambda searched: searched.to_list())
    if not found.hits:
        raise SystemExit(1)  # as grep says it: nothing found (what was said went to stderr)
