"""The README's set-up command, run as a new user runs it: from a copy of the
checkout, with a new HOME and an empty pip cache (a cached wheel once hid a
crashing release), nothing of conv's installed. tests/test_setup.py checks
that it ends in an answer; tests/bench/bench_setup.py times each step."""

import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def command() -> str:
    """The command of the README's Set-up section, exactly as written there."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Set-up"):]
    return re.search(r"```sh\n(.+?)\n```", section, re.S)[1].strip()


def fresh_machine(place: Path, runtime: str | None = None) -> tuple[Path, dict]:
    """(a copy of the checkout, the environment of a user who never ran conv)."""
    checkout = place / "checkout"
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, checkout / name)
    home, cache = place / "home", place / "empty-pip-cache"
    home.mkdir()
    cache.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CONV_", "XDG_", "VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE"))}
    env |= {"HOME": str(home), "PIP_CACHE_DIR": str(cache), "PIP_NO_INPUT": "1"}
    if runtime:
        env["XDG_RUNTIME_DIR"] = runtime
    return checkout, env
