"""Committing one exchange at 10,000 conversations, in-process.

An exchange is what ``conv ask`` commits: the question, then the answer, each
one ``conv.store.Store.add_turns`` call (writer lock, read the conversation's
tree, render the turn with ``Turn.to_text()``, write blob + trees + commit,
move the branch). Conversations are picked at random from the generated store.
Two ways: a fresh ``Store`` per exchange (what a ``conv ask`` process does:
the repository and its pack index are opened again), and one ``Store`` reused
(steady state). One unmeasured exchange first (imports, page cache).

Budget: <= 15 ms median per exchange.

    python tests/bench/bench_commit.py [--exchanges 50] [--conversations 10000]
"""

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

from conv.format import ids  # noqa: E402
from conv.format.model import Turn, now_iso  # noqa: E402
from conv.store import Store  # noqa: E402

BUDGET_MS = 15
ANSWER = "Rebase replays your commits on top of another base.\n\n```sh\ngit rebase -i main\n```\n" * 3


def exchange(store: Store, conv_id: str) -> tuple[float, float]:
    """Seconds for the question's commit and for the answer's."""
    question = []

    def ask(parent):
        question[:] = [Turn(ids.new_turn_name("user"), "user", "and what about interactive mode?", now_iso(), parent)]
        return question

    t0 = time.perf_counter()
    store.add_turns(conv_id, ask, f"{conv_id}: ask")
    t1 = time.perf_counter()
    answer = Turn(ids.new_turn_name("assistant"), "assistant", ANSWER, now_iso(), question[0].name,
                  model="gpt-4o-mini", provider="openai", usage={"prompt_tokens": 120, "completion_tokens": 60},
                  finish="stop")
    store.add_turns(conv_id, lambda parent: [answer], f"{conv_id}: answer (gpt-4o-mini, 60 tokens)")
    return t1 - t0, time.perf_counter() - t1


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--exchanges", type=int, default=50)
    p.add_argument("--conversations", type=int, default=10_000)
    a = p.parse_args(argv)
    home = common.store_home(a.conversations)
    path = home / "store.git"
    pick = random.Random(0).sample(common.conversation_ids(home), 2 * a.exchanges + 1)
    print(f"bench_commit: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    exchange(Store(path), pick.pop())  # warm-up
    rows = []
    for label, fresh in (("fresh Store per exchange", True), ("one Store reused", False)):
        store = Store(path)
        q, r, both = [], [], []
        for _ in range(a.exchanges):
            if fresh:
                store = Store(path)
            tq, ta = exchange(store, pick.pop())
            q.append(tq), r.append(ta), both.append(tq + ta)
        rows.append(common.row(f"exchange, {label} @{a.conversations}", common.stats(both), BUDGET_MS))
        rows.append(common.row(f"  its question commit alone ({label})", common.stats(q)))
        rows.append(common.row(f"  its answer commit alone ({label})", common.stats(r)))
    return rows


if __name__ == "__main__":
    main()
