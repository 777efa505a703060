"""conv's command line: thin Typer commands that parse, call a service and
render its result. No git or HTTP code lives here."""

from . import ask, browse, config_cmd  # noqa: F401  (each registers its commands)
from .app import app
