"""Where conv keeps things.

``CONV_HOME`` puts everything under one folder (store, config, state, cache);
otherwise each goes where platformdirs says the OS wants it.
"""

import os
from functools import cache

from .env import setting

TYPE_CHECKING = False  # typing's, without importing typing: PEP 781's idiom

if TYPE_CHECKING:
    from pathlib import Path


@cache
def _dirs() -> tuple[str, str, str, str]:
    """Store, config, state, cache, as strings: conv push finds its store
    without importing pathlib (3 ms)."""
    home = setting("CONV_HOME")
    if home:
        root = os.path.expanduser(home)
        return tuple(os.path.join(root, name) for name in ("store.git", "config", "state", "cache"))
    import platformdirs

    dirs = platformdirs.PlatformDirs("conv", appauthor=False)
    return (os.path.join(dirs.user_data_dir, "store.git"), dirs.user_config_dir, dirs.user_state_dir,
            dirs.user_cache_dir)


def _dir(which: int) -> "Path":
    from pathlib import Path

    return Path(_dirs()[which])


def store_dir() -> str:
    """The bare git repository holding every conversation (a string; Store.path is its Path)."""
    return _dirs()[0]


def models_dir() -> "Path":
    """Model files conv fetched (``conv models pull``), beside the store: kept
    across reinstalls of conv, unlike a package's files."""
    return _dir(0).parent / "models"


def config_file() -> "Path":
    return _dir(1) / "config.yaml"


def state_dir() -> "Path":
    """Per-terminal session files and the prompt segment's state."""
    return _dir(2)


def cache_dir() -> "Path":
    """Disposable: the SQLite index lives here and is rebuilt from git at will."""
    return _dir(3)


def edit_file(conv_id: str) -> "Path":
    """Where ``conv edit`` puts a conversation for the editor (kept when the edit fails)."""
    return cache_dir() / "edit" / f"{conv_id}.md"


def chat_history() -> "Path":
    """The questions typed in ``conv chat``, for its line editor."""
    return state_dir() / "chat_history"
