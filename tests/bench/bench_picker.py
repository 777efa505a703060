"""Search as you type (``conv resume``'s picker, Alt-J in the shells) at
10,000 and 100,000 conversations (genstore.py's stores, whose turns are
drawn from 80 common words: every word below is in most turns, the hardest
case): a query typed a character at a time, the time from each keystroke to
its results (the fuzzy match over the latest conversations and the
full-text search of every turn, as the picker calls them), in the process,
as the picker runs. Budgets: 50 ms at 10,000, 150 ms at 100,000.

    python tests/bench/bench_picker.py [--runs 5] [--sizes 10000,100000]
"""

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

BUDGETS = {10_000: 50, 100_000: 150}  # ms a keystroke, at that many conversations
TYPED = ("retry timeout", "merge conflict on main")  # typed a character at a time


def at(size: int, runs: int) -> list[dict]:
    home = common.store_home(size)
    common.run(common.conv("list", "-n", "1"), common.child_env(home))  # the index current
    os.environ["CONV_HOME"] = str(home)
    from conv.home import paths
    from conv.services import resume
    from conv.services.workspace import Workspace
    from conv.terminal.sanitize import clean

    paths._dirs.cache_clear()  # genstore's imports read conv's folders before CONV_HOME named this store's
    ws = Workspace(notice=lambda line: None)
    found = resume.candidates(ws, clean)
    assert len(found) == min(size, resume.LIMIT), (len(found), size)  # this store's, not the default one
    rank = resume.searcher(ws, clean)
    rank(TYPED[0], found)  # the index opened, as by the picker's first keystroke
    samples = []
    for _ in range(runs):
        for text in TYPED:
            for end in range(1, len(text) + 1):
                start = time.perf_counter()
                rank(text[:end], found)
                samples.append(time.perf_counter() - start)
    return [common.row(f"picker: a keystroke to its results @{size}", common.stats(samples),
                       BUDGETS.get(size))]


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5, help="times each query is typed")
    p.add_argument("--sizes", default="10000,100000")
    a = p.parse_args(argv)
    print(f"bench_picker: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    rows = []
    for size in (int(s) for s in a.sizes.split(",")):
        rows += at(size, a.runs)
    return rows


if __name__ == "__main__":
    common.summary(main(), "picker")
