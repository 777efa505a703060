"""Tab completion (``conv __complete``, what the plugins run on TAB) as a
cold process at 10,000 conversations: a subcommand, a command's options,
every conversation (the newest 200 with titles) and an id prefix.

Budget: <= 100 ms median for each.

    python tests/bench/bench_complete.py [--runs 20] [--conversations 10000]
"""

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

BUDGET_MS = 100


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--conversations", type=int, default=10_000)
    a = p.parse_args(argv)
    n = a.conversations
    home = common.store_home(n)
    env = common.child_env(home)
    prefix = common.conversation_ids(home)[0][:2]
    print(f"bench_complete: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    rows = []
    for label, words in (("a subcommand: conv sh<TAB>", ["sh"]), ("options: conv show --<TAB>", ["show", "--"]),
                         ("conversations: conv show <TAB>", ["show", ""]),
                         (f"an id prefix: conv show {prefix}<TAB>", ["show", prefix])):
        command = common.conv("__complete", *words)
        common.run(command, env)  # warm-up (the index is current after it)
        rows.append(common.row(f"{label} @{n}", common.stats([common.run(command, env) for _ in range(a.runs)]),
                               BUDGET_MS))
    return rows


if __name__ == "__main__":
    common.summary(main())
