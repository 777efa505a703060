"""``conv list -n 50`` as a cold process at 10,000 conversations.

Measured (wall time of the whole ``conv`` process, stdin empty):
  * index current, stdout a pipe (plain text) and a pseudo-terminal (rich table);
  * the same with ``--here`` in a git work tree's subfolder (the project's root
    found from the folder's files, the index filtered by it);
  * full index rebuild: cache/index.sqlite deleted, then ``conv list``,
    beside ``git cat-file --batch-all-objects --batch`` (git reading every
    object once; the build's budget is 10 times that);
  * right after one ``conv ask --cid`` (conv moves the index along itself);
  * right after a commit made outside conv's CLI (``Store.add_turns``, as a
    sync or another writer would): the index catches up from the tree diff.
The index is brought up to date and ``conv list`` run once unmeasured first.

Budget: <= 150 ms median with the index current.

    python tests/bench/bench_list.py [--runs 20] [--rebuilds 3] [--after 5]
"""

import argparse
import os
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

BUDGET_MS = 150
REBUILD_BUDGET = 10  # a full build: at most 10 times git reading every object once
LIST = common.conv("list", "-n", "50")


def outside_commit(home: Path, conv_id: str) -> None:
    from conv.format import ids
    from conv.format.model import Turn, now_iso
    from conv.store import Store

    Store(home / "store.git").add_turns(
        conv_id, lambda parent: [Turn(ids.new_turn_name("user"), "user", "synced from elsewhere", now_iso(), parent)],
        f"{conv_id}: ask")


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--rebuilds", type=int, default=3, help="full index rebuilds to time (each takes a while)")
    p.add_argument("--after", type=int, default=5, help="runs after an ask / an outside commit")
    p.add_argument("--conversations", type=int, default=10_000)
    a = p.parse_args(argv)
    n = a.conversations
    home = common.store_home(n)
    env = common.child_env(home)
    print(f"bench_list: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    common.run(LIST, env)  # warm-up; the index is current from here on
    rows = [common.row(f"list -n 50, index current, piped @{n}",
                       common.stats([common.run(LIST, env) for _ in range(a.runs)]), BUDGET_MS)]
    common.run(LIST, env, tty=True)
    rows.append(common.row(f"list -n 50, index current, terminal @{n}",
                           common.stats([common.run(LIST, env, tty=True) for _ in range(a.runs)]), BUDGET_MS))
    project = home.parent / "project" / "src" / "deep"  # a work tree's subfolder: --here finds its root, then filters
    project.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(project.parent.parent)], check=True)
    here = LIST + ["--here"]
    rows.append(common.row(f"list -n 50 --here, in a project's subfolder @{n}",
                           common.stats([common.run(here, env, cwd=project) for _ in range(a.runs)]), BUDGET_MS))

    picks = random.Random(1).sample(common.conversation_ids(home), 2 * a.after)
    with common.fake_server() as url:
        ask_env = common.child_env(home, url)
        after_ask = []
        for conv_id in picks[: a.after]:
            common.run(common.conv("ask", "--cid", conv_id, "q"), ask_env)
            after_ask.append(common.run(LIST, env))
    rows.append(common.row(f"list -n 50 after one conv ask @{n}", common.stats(after_ask)))
    after_outside = []
    for conv_id in picks[a.after:]:
        outside_commit(home, conv_id)
        after_outside.append(common.run(LIST, env))
    rows.append(common.row(f"list -n 50 after an outside commit (tree diff) @{n}", common.stats(after_outside)))

    rebuilds = []
    for _ in range(a.rebuilds):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{home}/cache/index.sqlite{suffix}").unlink(missing_ok=True)
        rebuilds.append(common.run(LIST, env))
    if rebuilds:
        reads = common.stats([common.git_reads_everything(home / "store.git") for _ in range(a.rebuilds)])
        rows.append(common.row(f"list -n 50, full index rebuild @{n}", common.stats(rebuilds),
                               round(REBUILD_BUDGET * reads["median"], 1)))
        rows.append(common.row(f"  git reading every object once (reference) @{n}", reads))
    return rows


if __name__ == "__main__":
    main()
