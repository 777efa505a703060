"""``import.auto``'s catch-up, for sessions no hook reached: the real opencode
and pi (the suite's, tests/real_tools.py) write a new session each against
the loopback fake before ``conv connect``, then in a fresh store with
``import.auto`` on both are connected (the first connect's own start
runs a catch-up while neither is connected yet): timed from the first ``conv connect`` until
both sessions are in the store (the background catch-up's commits; budget
5 s; before, the next catch-up was a minute away), on a quiet machine and with
every core busy (two spinning processes a core).

    python tests/bench/bench_catch_up.py [--runs 5] [--agents opencode,pi]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from contextlib import nullcontext

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

sys.path.insert(0, str(common.ROOT / "tests"))
import real_tools  # noqa: E402
from fakeserver import FakeServer  # noqa: E402

LANDED_BUDGET = 5000  # ms from conv connect to the sessions its hooks never saw in the store
AGENTS = ("opencode", "pi")


def point(home, url: str) -> dict:
    """opencode's and pi's settings in ``home``, asking the fake at ``url``; the environment they run in."""
    config = home / ".config" / "opencode"
    config.mkdir(parents=True, exist_ok=True)
    (config / "opencode.json").write_text(json.dumps({
        "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
                              "options": {"baseURL": url, "apiKey": "sk-fake"},
                              "models": {"fake-model": {"name": "Fake Model"}}}},
        "model": "fake/fake-model", "autoupdate": False, "share": "disabled"}))
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "models.json").write_text(json.dumps({"providers": {"fake": {
        "baseUrl": url, "api": "openai-completions", "apiKey": "sk-fake",
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
        "models": [{"id": "fake-model", "name": "Fake Model"}]}}}))
    (agent / "settings.json").write_text(json.dumps({"defaultProvider": "fake", "defaultModel": "fake-model"}))
    return {"HOME": str(home), "OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_SHARE": "1", "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"}


def conversations(env: dict) -> int:
    done = subprocess.run(common.conv("list", "--json", "-n", "1000"), env=env, capture_output=True, text=True)
    return len(json.loads(done.stdout)) if done.returncode == 0 and done.stdout.strip() else 0


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5, help="rounds, quiet and busy each")
    p.add_argument("--agents", default=",".join(AGENTS))
    a = p.parse_args(argv)
    agents = [name for name in AGENTS if name in a.agents.split(",")]
    print(f"bench_catch_up: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    binaries = {name: real_tools.agent(name) for name in agents}
    work = common.OUT / "catch-up"
    shutil.rmtree(work, ignore_errors=True)
    project = work / "proj"
    project.mkdir(parents=True)
    quiet, busy = [], []
    with FakeServer(reply="It is 4.") as server:
        agents_env = {**os.environ, "PWD": str(project), **point(work / "user", server.url)}
        for n in range(2 * a.runs):
            for name in agents:
                argv = {"opencode": ["run", "what", "is", "2+2?"], "pi": ["-p", "what is 2+2?"]}[name]
                done = subprocess.run([str(binaries[name]), *argv], cwd=project, env=agents_env,
                                      stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
                if done.returncode:
                    sys.exit(f"{name} failed: {done.stderr[-2000:]}")
            env = {**common.child_env(work / f"conv-{n}"), "HOME": agents_env["HOME"]}  # a fresh store each round
            subprocess.run(common.conv("config", "set", "import.auto", "true"), env=env, check=True,
                           capture_output=True)
            sessions = len(agents) * (n + 1)  # every round's, all from before this store's connect
            load = common.every_core_busy() if n >= a.runs else nullcontext()
            with load:
                start = time.perf_counter()
                for name in agents:
                    subprocess.run(common.conv("connect", name), env=env, check=True, capture_output=True)
                while conversations(env) < sessions:
                    if time.perf_counter() - start > 120:
                        sys.exit(f"bench_catch_up: {sessions} sessions not in the store within 120 s")
                    time.sleep(0.05)
                (busy if n >= a.runs else quiet).append(time.perf_counter() - start)
            for name in agents:  # the next round's sessions are again from before conv connect
                subprocess.run(common.conv("connect", name, "--remove"), env=env, check=True, capture_output=True)
    return [common.row("conv connect to opencode's, pi's earlier sessions in", common.stats(quiet), LANDED_BUDGET),
            common.row("  the same, every core busy", common.stats(busy), LANDED_BUDGET)]


if __name__ == "__main__":
    common.summary(main(), "catchup")
