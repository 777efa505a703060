"""Files that readers see whole or not at all."""

import os
from pathlib import Path


def write_atomic(path: Path, text: str) -> None:
    """Write beside, then rename over: a reader sees the old or the new file, whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
