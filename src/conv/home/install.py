"""How conv was installed here, so that the way to add the local model is a
command that works for this install: conv is not on the package index, so
``pip install 'conv-git[local]'`` would not. Read only when that hint is
printed (importlib.metadata costs a few ms)."""

import os
import re
import shlex
import sys
from importlib.util import find_spec
from pathlib import Path

DIST = "conv-git"
RUNTIME = "xllamacpp"
PULL = "conv models pull"


def local_model_command() -> str:
    """What makes ``-m local`` answer here: the runtime brought into this
    install when it is missing, then the model file (``conv models pull``)."""
    if find_spec(RUNTIME) is not None:
        return PULL
    return f"{runtime_command()} && {PULL}"


def has_wheel() -> bool:
    """Whether the runtime comes as a prebuilt wheel for this machine (pyproject.toml's marker says the same)."""
    return sys.platform == "darwin" or (sys.platform.startswith("linux")
                                        and os.uname().machine in ("x86_64", "aarch64"))


def runtime_command() -> str:
    """The command that brings the ``[local]`` extra into this install:
    ``pipx inject`` for pipx, ``uv tool install --with`` for uv tools, this
    environment's pip otherwise; a source build of llama.cpp where no wheel
    exists (with GGML_NATIVE off: a build for the CPU it runs on faulted in
    virtual machines whose CPU claims more than they allow)."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution(DIST)
    except PackageNotFoundError:
        return "pip install -e '.[local]' (in a checkout of conv)"
    wanted = [re.split(r"\s*;", r)[0] for r in dist.requires or () if re.search(r"extra\s*==\s*['\"]local['\"]", r)]
    packages = " ".join(shlex.quote(r) for r in wanted)
    prefix = Path(sys.prefix).as_posix()
    if not has_wheel():
        return (f"CMAKE_ARGS=-DGGML_NATIVE=OFF {shlex.quote(str(Path(sys.executable)))} -m pip install "
                f"--no-binary {RUNTIME} {packages} (no prebuilt {RUNTIME} for {sys.platform} {os.uname().machine}: "
                "this builds llama.cpp, which needs a C++ compiler, cmake and Rust)")
    if "/pipx/venvs/" in prefix:
        return f"pipx inject {DIST} {packages}"
    if "/uv/tools/" in prefix:
        source = _source(dist) or DIST
        return (f"uv tool install --reinstall {' '.join('--with ' + shlex.quote(r) for r in wanted)} "
                f"{shlex.quote(source)}")
    return f"{shlex.quote(str(Path(sys.executable)))} -m pip install {packages}"


def _source(dist) -> str | None:
    """The directory conv was installed from (PEP 610's direct_url.json), if one."""
    import json

    try:
        url = json.loads(dist.read_text("direct_url.json") or "{}").get("url", "")
    except ValueError:
        return None
    return url.removeprefix("file://") if url.startswith("file://") else None
