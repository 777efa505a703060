"""The README's set-up command, run as a new user runs it: from a copy of the
checkout, with a new HOME and an empty pip cache (a cached wheel once hid a
crashing release), nothing of conv's installed. tests/test_setup.py checks
that it ends in an answer; tests/bench/bench_setup.py times each step.

It takes half a minute, a third of it waiting on the package index, so when
the whole suite runs, conftest.py begins it in the background as the tests
are collected (``python readme_setup.py PLACE``, which leaves its outcome in
PLACE) and the test reads that outcome; run alone, the test runs it itself."""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BACKGROUND = "README_SETUP_PLACE"  # the environment variable naming the suite's background run's folder


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


def run(place: Path, runtime: str | None = None) -> tuple[subprocess.CompletedProcess, dict]:
    """The command on a fresh machine made in PLACE: (its outcome, that machine's environment)."""
    checkout, env = fresh_machine(place, runtime)
    done = subprocess.run(["bash", "-c", command()], cwd=checkout, env=env, capture_output=True, timeout=900,
                          stdin=subprocess.DEVNULL)
    return done, env


def outcome(place: Path, runtime: str) -> tuple[subprocess.CompletedProcess, dict, Path]:
    """(outcome, environment, fresh machine's folder): of the suite's
    background run if one was begun, else of a run in PLACE now."""
    background = Path(os.environ.get(BACKGROUND) or place / "none begun")
    if not background.is_dir():
        return (*run(place, runtime), place)
    done = background / "outcome.json"
    deadline = time.monotonic() + 900
    while not done.exists():
        assert time.monotonic() < deadline, "the README's set-up, begun in the background, never ended"
        time.sleep(0.2)
    kept = json.loads(done.read_text())
    result = subprocess.CompletedProcess(kept["args"], kept["returncode"], (background / "stdout").read_bytes(),
                                         (background / "stderr").read_bytes())
    return result, kept["env"], background


if __name__ == "__main__":  # PLACE: run there, leave stdout, stderr and outcome.json (written last)
    place = Path(sys.argv[1])
    (place / "runtime").mkdir(mode=0o700)
    try:
        done, env = run(place, str(place / "runtime"))
    except Exception as exc:  # a time-out, say: the test reads it, instead of waiting for an outcome
        done, env = subprocess.CompletedProcess(command(), -1, b"", repr(exc).encode()), {}
    (place / "stdout").write_bytes(done.stdout)
    (place / "stderr").write_bytes(done.stderr)
    (place / "outcome.part").write_text(json.dumps({"args": done.args, "returncode": done.returncode, "env": env}))
    (place / "outcome.part").rename(place / "outcome.json")
