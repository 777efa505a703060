"""``conv import --from chatgpt`` of a generated export (3,000 conversations
of 6 turns by default: the size the scale issue measured) into an empty
store, as a cold process: how long, and the store and index it leaves,
before and after ``conv gc``; then ``conv reindex`` of that store beside
git reading every object once (the build's budget: 10 times that).

    python tests/bench/bench_import.py [--conversations 3000] [--turns 6] [--runs 3]
"""

import argparse
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

REBUILD_BUDGET = 10  # a full index build: at most 10 times git reading every object once
WORDS = "git rebase merge branch commit tree index stash remote push pull fetch conflict history log".split()


def export(path: Path, conversations: int, turns: int) -> None:
    """A conversations.json as ChatGPT's export writes it: a mapping of nodes a conversation."""
    rng = random.Random(7)
    out = []
    for c in range(conversations):
        mapping, parent = {"root": {"id": "root", "parent": None, "children": [], "message": None}}, "root"
        for t in range(turns):
            node = f"n{t}"
            role = "user" if t % 2 == 0 else "assistant"
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 120)))
            mapping[node] = {"id": node, "parent": parent, "children": [], "message": {
                "id": node, "author": {"role": role}, "create_time": 1_700_000_000 + c * 60 + t,
                "content": {"content_type": "text", "parts": [text]},
                "metadata": {"model_slug": "gpt-4o"} if role == "assistant" else {}}}
            mapping[parent]["children"].append(node)
            parent = node
        out.append({"conversation_id": f"c-{c}", "title": f"conversation {c}", "create_time": 1_700_000_000 + c * 60,
                    "update_time": 1_700_000_000 + c * 60 + turns, "current_node": parent, "mapping": mapping})
    path.write_text(json.dumps(out))


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--conversations", type=int, default=3000)
    p.add_argument("--turns", type=int, default=6)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "conversations.json"
        export(source, a.conversations, a.turns)
        samples = []
        for run in range(a.runs):
            home = Path(tmp) / f"home{run}"
            samples.append(common.run(common.conv("import", "--from", "chatgpt", str(source)), common.child_env(home)))
        env = common.child_env(home)
        print(f"bench_import: {a.conversations} x {a.turns} turns; before conv gc {sizes(home)}")
        common.run(common.conv("gc"), env)
        print(f"bench_import: after conv gc {sizes(home)}")
        rows = [common.row(f"import --from chatgpt, {a.conversations} conversations", common.stats(samples))]
        rebuilds, reads = [], []
        for _ in range(a.runs):
            rebuilds.append(common.run(common.conv("reindex"), env))
            reads.append(common.git_reads_everything(home / "store.git"))
        reads = common.stats(reads)
        rows.append(common.row(f"reindex after conv gc, {a.conversations} conversations", common.stats(rebuilds),
                               round(REBUILD_BUDGET * reads["median"], 1)))
        rows.append(common.row("  git reading every object once (reference)", reads))
        shutil.rmtree(home)
    return rows


def sizes(home: Path) -> str:
    store = sum(f.stat().st_size for f in (home / "store.git").rglob("*") if f.is_file())
    index = (home / "cache" / "index.sqlite").stat().st_size
    return f"store.git {store / 1e6:.1f} MB, index {index / 1e6:.1f} MB ({index / store:.2f}x)"


if __name__ == "__main__":
    common.summary(main())
