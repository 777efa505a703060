"""The Typer app with every command registered on it."""

from . import ask, browse, config_cmd, exchange, history, maintain, manage  # noqa: F401  (each registers its commands)
from .app import app

__all__ = ["app"]
