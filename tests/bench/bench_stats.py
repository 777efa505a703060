"""``conv stats`` at 10,000 and 100,000 conversations (genstore.py's stores:
their answers spread over a year): the last 30 days by tool, as a person
asks it (a process, cold; budget 200 ms), and a year by project and model.

    python tests/bench/bench_stats.py [--runs 10] [--sizes 10000,100000]
"""

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

BUDGET = 200  # ms, 30 days over 100,000 conversations
ASKED = {"30 days by tool": ("stats",), "a year by project and model": (
    "stats", "--since", "365d", "--by", "project", "--by", "model")}


def at(size: int, runs: int) -> list[dict]:
    home = common.store_home(size)
    env = common.child_env(home)
    common.run(common.conv("list", "-n", "1"), env)  # the index current
    rows = []
    for name, args in ASKED.items():
        command = common.conv(*args, "--json")
        common.run(command, env)  # warm
        rows.append(common.row(f"conv stats, {name} @{size}", common.stats([common.run(command, env)
                                                                            for _ in range(runs)]),
                               BUDGET if name.startswith("30") else None))
    return rows


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--sizes", default="10000,100000")
    a = p.parse_args(argv)
    print(f"bench_stats: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    return [row for size in (int(s) for s in a.sizes.split(",")) for row in at(size, a.runs)]


if __name__ == "__main__":
    common.summary(main(), "stats")
