"""conv's command line: thin Typer commands that parse, call a service and
render its result. No git or HTTP code lives here. The package itself imports
nothing, so the fast path (run/) can run without Typer."""
