"""Run every benchmark and print one summary table.

Generates the stores first if tests/bench/out/ has none (about 2-3 minutes
for 10,000 x 5 on two cores), then runs bench_ask, bench_commit and
bench_list with their defaults. ``--quick`` cuts the repetitions (for a smoke
run, not for figures); ``--no-rebuild`` skips the full index rebuilds.

    python tests/bench/run_all.py [--quick] [--no-rebuild]
"""

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_ask  # noqa: E402
import bench_commit  # noqa: E402
import bench_list  # noqa: E402
import common  # noqa: E402


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="few repetitions: a smoke run")
    p.add_argument("--no-rebuild", action="store_true", help="skip the full index rebuilds (about a minute each)")
    a = p.parse_args(argv)
    runs = ["--runs", "5"] if a.quick else []
    rebuilds = ["--rebuilds", "0" if a.no_rebuild else "1" if a.quick else "3"]
    started, load = time.perf_counter(), os.getloadavg()[0]
    common.store_home(10)
    common.store_home(10_000)
    results = []
    for name, module, args in (
        ("ask", bench_ask, runs),
        ("commit", bench_commit, ["--exchanges", "10"] if a.quick else []),
        ("list", bench_list, runs + rebuilds + (["--after", "2"] if a.quick else [])),
    ):
        print(f"\n== bench_{name}", flush=True)
        results += [{"bench": name, **r} for r in module.main(args)]

    bench_ask.importtime(10_000, 5)
    print(f"\n== summary (load average {load:.2f} at start, {os.getloadavg()[0]:.2f} at end, "
          f"{os.cpu_count()} cores, {time.perf_counter() - started:.0f} s)")
    print(f"{'bench':<7} {'measure':<56} {'median ms':>10} {'p90 ms':>9} {'n':>4} {'budget':>8}  verdict")
    for r in results:
        budget = f"<= {r['budget']:g}" if r["budget"] is not None else ""
        print(f"{r['bench']:<7} {r['name'].strip():<56} {r['median']:10.1f} {r['p90']:9.1f} {r['n']:4} {budget:>8}  "
              f"{r['verdict']}")


if __name__ == "__main__":
    main()
