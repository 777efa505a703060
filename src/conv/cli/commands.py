"""The Typer app with every command registered on it: one module a help panel."""

# Imported in the order --help shows their panels; each module registers its commands.
from . import ask, read, manage, store, exchange, sync, shell  # noqa: F401, I001
from .app import app

__all__ = ["app"]
