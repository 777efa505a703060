"""The Typer app with every command registered on it."""

# Imported in the order --help shows their panels; each module registers its commands.
from . import ask, chat, models, browse, resume, history, manage, maintain, exchange, sync, shell, config_cmd  # noqa: F401, I001
from .app import app

__all__ = ["app"]
