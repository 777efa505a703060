"""Where conv keeps things.

``CONV_HOME`` puts everything under one folder (store, config, state, cache);
otherwise each goes where platformdirs says the OS wants it.
"""

from functools import cache
from pathlib import Path

from .env import setting


@cache
def _dirs() -> tuple[Path, Path, Path, Path]:
    home = setting("CONV_HOME")
    if home:
        root = Path(home).expanduser()
        return root / "store.git", root / "config", root / "state", root / "cache"
    import platformdirs

    dirs = platformdirs.PlatformDirs("conv", appauthor=False)
    return (
        Path(dirs.user_data_dir) / "store.git",
        Path(dirs.user_config_dir),
        Path(dirs.user_state_dir),
        Path(dirs.user_cache_dir),
    )


def store_dir() -> Path:
    """The bare git repository holding every conversation."""
    return _dirs()[0]


def config_file() -> Path:
    return _dirs()[1] / "config.yaml"


def state_dir() -> Path:
    """Per-terminal session files and the prompt segment's state."""
    return _dirs()[2]


def cache_dir() -> Path:
    """Disposable: the SQLite index lives here and is rebuilt from git at will."""
    return _dirs()[3]


def edit_file(conv_id: str) -> Path:
    """Where ``conv edit`` puts a conversation for the editor (kept when the edit fails)."""
    return cache_dir() / "edit" / f"{conv_id}.md"


def chat_history() -> Path:
    """The questions typed in ``conv chat``, for its line editor."""
    return state_dir() / "chat_history"
