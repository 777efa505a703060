"""Redaction's speed and its two counts, on the corpus tests/redaction_corpus.py
writes: MB/s of the redactor on one core over ~20 MB of developer talk and code
with the planted values in it (budget: at least 6 MB/s), how many planted
values it caught and how many clean lines it changed (budget: all, none);
then ``conv export --all --preview`` over 1,000 conversations (genstore.py's
store), as a person asks it (budget 10 s).

    python tests/bench/bench_redaction.py [--runs 3] [--megabytes 20] [--sizes 1000]
"""

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import common  # noqa: E402
from redaction_corpus import CLEAN, HOME, PLANTED, ROOT, USER, planted_text, planted_values  # noqa: E402

from conv.home.redaction import Mine, Redactor  # noqa: E402

PREVIEW_BUDGET = 10_000  # ms, 1,000 conversations
MINE = Mine(homes=(HOME,), login=USER["login"], host=USER["host"], git_name=USER["name"], git_email=USER["email"],
            roots=(ROOT,))


def counts() -> tuple[int, int, int, int]:
    """(planted values caught, planted, clean lines changed, clean lines)."""
    caught = total = 0
    for kind, values in planted_values().items():
        for line, value in zip(PLANTED[kind], values):
            total += 1
            caught += value not in Redactor(MINE)(line.replace("[[", "").replace("]]", ""))
    redactor = Redactor(MINE)
    return caught, total, sum(redactor(line) != line for line in CLEAN), len(CLEAN)


def speed(megabytes: int, runs: int) -> dict:
    """The redactor over turns of ~4 KB (as conversations hold them), the corpus repeated."""
    turn = (planted_text() + "\n" + "\n".join(CLEAN) * 6 + "\n")
    turns = [turn] * max(1, megabytes * 1_000_000 // len(turn))
    size = sum(len(t.encode()) for t in turns)
    samples = []
    for _ in range(runs):
        redactor = Redactor(MINE)
        started = time.perf_counter()
        for text in turns:
            redactor(text)
        samples.append(time.perf_counter() - started)
    rate = size / 1e6 / min(samples)
    print(f"  redactor: {size / 1e6:.1f} MB in turns of {len(turn):,} bytes: {rate:.1f} MB/s on one core "
          f"(budget >= 6: {'ok' if rate >= 6 else 'UNDER'})", flush=True)
    return common.row("redact 1 MB of turns (time per MB)", common.stats([s * 1e6 / size for s in samples]),
                      1000 / 6)


def preview(size: int, runs: int) -> dict:
    home = common.store_home(size)
    env = common.child_env(home)
    common.run(common.conv("list", "-n", "1"), env)  # the index current
    command = common.conv("export", "--all", "--format", "md", "--preview")
    return common.row(f"conv export --all --preview @{size}", common.stats([common.run(command, env)
                                                                          for _ in range(runs)]), PREVIEW_BUDGET)


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--megabytes", type=int, default=20)
    p.add_argument("--sizes", default="1000")
    a = p.parse_args(argv)
    print(f"bench_redaction: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    caught, total, changed, clean = counts()
    print(f"  planted values caught: {caught}/{total} ({'ok' if caught == total else 'MISSED'}); clean lines "
          f"changed: {changed}/{clean} ({'ok' if not changed else 'CHANGED'})", flush=True)
    return [speed(a.megabytes, a.runs), *(preview(int(s), a.runs) for s in a.sizes.split(","))]


if __name__ == "__main__":
    common.summary(main(), "redact")
