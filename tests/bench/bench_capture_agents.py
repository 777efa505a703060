"""The live capture of Gemini CLI, Qwen Code and Copilot CLI, with the real
agents (the suite's, tests/real_tools.py) against the loopback fakes: a
headless run (``-p``) timed without conv and after ``conv connect``, so
the difference is what conv's hooks cost the agent, and the time from the
agent's exit until the exchange is in the store (the background worker's
commit; budget 2 s, which includes the worker's wait for the session file
to settle), on a quiet machine and with every core busy (two spinning
processes a core: the agent, its hook and the worker all get a third of one).

    python tests/bench/bench_capture_agents.py [--runs 5] [--agents gemini,qwen,copilot]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

sys.path.insert(0, str(common.ROOT / "tests"))
import real_tools  # noqa: E402
from fakeserver import FakeServer  # noqa: E402
from gemini_fake import GeminiFake  # noqa: E402

LANDED_BUDGET = 2000  # ms from the agent's exit to the exchange in the store
AGENTS = {  # conv's name -> the npm command, the fake it asks, the environment that points it there
    "gemini": ("gemini", GeminiFake, lambda url: {"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "fake-key",
                                                  "GEMINI_CLI_TRUST_WORKSPACE": "true"}),
    "qwen": ("qwen", FakeServer, lambda url: {"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "sk-fake",
                                              "OPENAI_MODEL": "fake-model",
                                              "QWEN_USAGE_STATISTICS_ENABLED": "false"}),
    "copilot": ("copilot", FakeServer, lambda url: {
        "COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_BASE_URL": url, "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_MODEL": "fake-model", "COPILOT_PROVIDER_API_KEY": "sk-fake", "COPILOT_AUTO_UPDATE": "false",
        "XDG_CACHE_HOME": str(real_tools.AGENTS_HOME / "cache")}),
}
GEMINI_SETTINGS = {"security": {"auth": {"selectedType": "gemini-api-key"}},
                   "privacy": {"usageStatisticsEnabled": False}, "general": {"enableAutoUpdate": False}}


def head(store: Path) -> str:
    done = subprocess.run(["git", "--git-dir", str(store), "rev-parse", "-q", "--verify", "HEAD"],
                          capture_output=True, text=True)
    return done.stdout.strip()


def at(name: str, runs: int) -> list[dict]:
    command, fake, pointed = AGENTS[name]
    binary = real_tools.agent(command)
    work = common.OUT / f"agents-{name}"
    shutil.rmtree(work, ignore_errors=True)
    home, project, conv_home = work / "user", work / "proj", work / "conv"
    project.mkdir(parents=True)
    home.mkdir()
    if name == "gemini":
        (home / ".gemini").mkdir()
        (home / ".gemini" / "settings.json").write_text(json.dumps(GEMINI_SETTINGS))
    hooked: list[float] = []
    with fake(reply="It is 4.") as server:
        env = {**common.child_env(conv_home), "HOME": str(home), "PWD": str(project), **pointed(server.url)}
        extra = ["--allow-all-tools"] if name == "copilot" else []

        def run() -> float:
            t = time.perf_counter()
            done = subprocess.run([str(binary), "-p", "what is 2+2?", *extra], cwd=project, env=env,
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
            if done.returncode:
                sys.exit(f"{name} failed: {done.stderr[-2000:]}")
            return time.perf_counter() - t

        run()  # its first start unpacks and caches: not counted
        plain = [run() for _ in range(runs)]
        subprocess.run(common.conv("connect", name), env=env, check=True, capture_output=True)
        store = conv_home / "store.git"

        def captured() -> float:
            """A run; the time from its exit until its exchange is in the store."""
            before = head(store)
            hooked.append(run())
            exited = time.perf_counter()
            while head(store) == before:
                if time.perf_counter() - exited > 60:
                    sys.exit(f"{name}: the exchange did not reach the store in 60 s")
                time.sleep(0.02)
            return time.perf_counter() - exited

        landed = [captured() for _ in range(runs)]
        with common.every_core_busy():
            busy = [captured() for _ in range(runs)]
        subprocess.run(common.conv("connect", name, "--remove"), env=env, check=True, capture_output=True)
    return [common.row(f"{name}: a run (-p), not connected", common.stats(plain)),
            common.row(f"{name}: a run (-p), conv's hooks in", common.stats(hooked[:runs])),
            common.row(f"{name}: its exit to the exchange in the store", common.stats(landed), LANDED_BUDGET),
            common.row(f"{name}:   the same, every core busy", common.stats(busy), LANDED_BUDGET)]


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5, help="runs of each agent, with and without conv")
    p.add_argument("--agents", default=",".join(AGENTS))
    a = p.parse_args(argv)
    print(f"bench_capture_agents: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    rows = []
    for name in a.agents.split(","):
        rows += at(name, a.runs)
    return rows


if __name__ == "__main__":
    common.summary(main(), "agents")
