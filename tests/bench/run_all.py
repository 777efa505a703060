"""Run every benchmark and print one summary table.

Generates the stores first if tests/bench/out/ has none (about 2-3 minutes
for 10,000 x 5 on two cores, and a minute more for the one with a commit per
conversation), then runs bench_ask, bench_network (what proxy support costs a
follow-up, through a tinyproxy of its own), bench_commit, bench_list, bench_complete, bench_import,
bench_capture and bench_manage with their defaults (bench_manage installs llm into
tests/bench/out/llm-venv and fills its logs.db the first time: about a
minute; ``--no-llm`` leaves llm out). ``--quick`` cuts the repetitions (for
a smoke run, not for figures); ``--no-rebuild`` skips the full index rebuilds.
bench_sync (conv push / pull / sync against git push / fetch, in a copy of
the store under tests/bench/out/sync/; about 3 minutes, most of it three full
pulls into a new store) comes next, then bench_providers (conv's overhead per
provider against curl / cat / a bare llama_cpp script, and the local model's
load, first token and tokens/s; about 4 minutes, most of it the local model),
and bench_shell (the shell plugins: prompt segment, start-up, Alt-F) runs
last; its rows carry their own unit (µs, forks) where it is not ms.

    python tests/bench/run_all.py [--quick] [--no-rebuild] [--no-llm]
"""

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_ask  # noqa: E402
import bench_capture  # noqa: E402
import bench_commit  # noqa: E402
import bench_complete  # noqa: E402
import bench_import  # noqa: E402
import bench_list  # noqa: E402
import bench_manage  # noqa: E402
import bench_network  # noqa: E402
import bench_providers  # noqa: E402
import bench_shell  # noqa: E402
import bench_sync  # noqa: E402
import common  # noqa: E402


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="few repetitions: a smoke run")
    p.add_argument("--no-rebuild", action="store_true", help="skip the full index rebuilds (about a minute each)")
    p.add_argument("--no-llm", action="store_true", help="bench_manage without the side by side with llm")
    a = p.parse_args(argv)
    runs = ["--runs", "5"] if a.quick else []
    rebuilds = ["--rebuilds", "0" if a.no_rebuild else "1" if a.quick else "3"]
    started, load = time.perf_counter(), os.getloadavg()[0]
    common.store_home(10)
    common.store_home(10_000)
    common.store_home(10_000, commits="per-conversation")
    results = []
    for name, module, args in (
        ("ask", bench_ask, runs),
        ("network", bench_network, runs),
        ("commit", bench_commit, ["--exchanges", "10"] if a.quick else []),
        ("list", bench_list, runs + rebuilds + (["--after", "2"] if a.quick else [])),
        ("complete", bench_complete, runs),
        ("import", bench_import, ["--runs", "1"] if a.quick else []),
        ("capture", bench_capture, runs),
        ("manage", bench_manage, runs + (["--git-runs", "2"] if a.quick else []) + (["--no-llm"] if a.no_llm else [])),
        ("sync", bench_sync, ["--runs", "3", "--full-runs", "1", "--pull-runs", "1"] if a.quick else []),
        ("providers", bench_providers, runs),
        ("shell", bench_shell, ["--quick"] if a.quick else []),
    ):
        print(f"\n== bench_{name}", flush=True)
        results += [{"bench": name, **r} for r in module.main(args)]

    bench_ask.importtime(10_000, 5)
    print(f"\n== summary (load average {load:.2f} at start, {os.getloadavg()[0]:.2f} at end, "
          f"{os.cpu_count()} cores, {time.perf_counter() - started:.0f} s)")
    print(f"{'bench':<7} {'measure':<56} {'median ms':>10} {'p90 ms':>9} {'n':>4} {'budget':>8}  verdict")
    for r in results:
        unit = r.get("unit", "ms")  # bench_shell: µs and forks per render
        budget = "" if r["budget"] is None else f"<= {r['budget']:g}" + ("" if unit == "ms" else f" {unit}")
        median, p90 = bench_shell.value(r["median"], unit), bench_shell.value(r["p90"], unit)
        print(f"{r['bench']:<7} {r['name'].strip():<56} {median:>10} {p90:>9} {r['n']:4} "
              f"{budget:>8}  {r['verdict']}")


if __name__ == "__main__":
    main()
