"""Fill a conv store fast: N conversations x T turns in one commit.

The files are exactly what conv writes: conv's own ``Conversation.to_text()``
and ``Turn.to_text()`` render them, ``conv.ids`` names conversations, turns
and paths, and ``conv.store.Store`` creates the repository. Only the commits
differ: instead of one commit per turn, every blob and tree is built with
dulwich (trees bottom-up: conversation, shard, ``conversations/``, root) and
written as one pack under a single commit. ``git gc`` then repacks it (deltas,
packed-refs, commit-graph) like a maintained store, ``git fsck --strict``
checks it, and one ``conv list`` builds the SQLite index.

Rendering goes through ruamel.yaml (~0.6 ms a file), so it runs on every core.

    python tests/bench/genstore.py --home DIR --conversations 10000 --turns 5

DIR gets ``store.git``, ``cache/index.sqlite``, ``ids.txt`` (one id a line)
and ``genstore.json``. If DIR already holds a store of that size it is reused:
its branch is moved back to the generated commit (undoing what benchmarks
added) and the index caught up.
"""

import argparse
import json
import os
import random
import shutil
import stat
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

from conv import ids  # noqa: E402
from conv.format import FORMAT_VERSION, Conversation, Turn  # noqa: E402
from conv.store import META_FILE, ROOT, STORE_README, Store  # noqa: E402

BRANCH = b"refs/heads/main"
DIR_MODE = stat.S_IFDIR
FILE_MODE = stat.S_IFREG | 0o644
MARKER = "genstore.json"

WORDS = ("git rebase commit branch merge conflict python function class module import test fixture "
         "the a of to and in is it that for on with as this be are by you can not use when what how "
         "why file path tree blob index cache server request response stream token model prompt answer "
         "question error retry timeout value list dict string bytes object store lock signal process").split()

try:  # conv's own title rule; a plain cut if it moved
    from conv.services.ask import _title
except ImportError:
    def _title(words, prompt):
        return prompt.splitlines()[0][:60]


def _text(rnd: random.Random, low: int, high: int) -> str:
    words = [rnd.choice(WORDS) for _ in range(rnd.randint(low, high))]
    paras, out = rnd.randint(1, 4), []
    step = max(1, len(words) // paras)
    for n in range(0, len(words), step):
        out.append(" ".join(words[n:n + step]).capitalize() + ".")
    if high > 100 and rnd.random() < 0.3:
        out.insert(1, "```python\ndef f(x):\n    return x * 2\n```")
    return "\n\n".join(out)


def render(job: tuple[int, int, int, float]) -> tuple[str, list[tuple[str, bytes]]]:
    """One conversation: its id and (file name, content) of each file."""
    n, seed, turns, now = job
    rnd = random.Random(seed * 1_000_003 + n)
    conv_id = ids.new_conversation_id("coder" if rnd.random() < 0.05 else None)
    created = datetime.fromtimestamp(now - rnd.uniform(3600, 365 * 86400), timezone.utc)
    moment, parent, files, first = created, None, [], None
    for k in range(turns):
        role = "user" if k % 2 == 0 else "assistant"
        moment += timedelta(seconds=rnd.uniform(1, 90))
        name = ids.new_turn_name(role, moment)
        stamp = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
        if role == "user":
            turn = Turn(name, role, _text(rnd, 5, 60), stamp, parent)
            first = first or turn.content
        else:
            done = rnd.randint(40, 400)
            turn = Turn(name, role, _text(rnd, done, done), stamp, parent, model="gpt-4o-mini", provider="openai",
                        usage={"prompt_tokens": rnd.randint(10, 4000), "completion_tokens": done}, finish="stop")
        files.append((f"{name}.md", turn.to_text().encode()))
        parent = name
    stamp = created.strftime("%Y-%m-%dT%H:%M:%S.") + f"{created.microsecond // 1000:03d}Z"
    meta = Conversation(conv_id, stamp, title=_title((first or "").split(), first or ""), model="gpt-4o-mini",
                        provider="openai")
    files.append((META_FILE, meta.to_text().encode()))
    return conv_id, files


def generate(home: Path, conversations: int, turns: int, jobs: int, seed: int = 1) -> dict:
    from dulwich.objects import Blob, Commit, Tree

    from conv.store.git import AUTHOR

    t0 = time.perf_counter()
    store = Store(home / "store.git")
    git_store = store.git  # creates the repository the way conv does (README, config)
    old = store.head()
    base = git_store.objects[git_store.objects[old.encode()].tree]
    objects: dict[bytes, object] = {}
    shards: dict = {}  # nested: shard directory -> ... -> conversation id -> tree id
    conv_ids = []
    now = time.time()
    with Pool(jobs) as pool:
        for conv_id, files in pool.imap(render, [(n, seed, turns, now) for n in range(conversations)], 64):
            tree = Tree()
            for name, data in files:
                blob = Blob.from_string(data)
                objects[blob.id] = blob
                tree.add(name.encode(), FILE_MODE, blob.id)
            objects[tree.id] = tree
            node = shards
            for part in ids.shard_of(conv_id).split("/"):
                node = node.setdefault(part, {})
            node[conv_id] = tree.id
            conv_ids.append(conv_id)
    t_render = time.perf_counter()

    def build(node: dict) -> bytes:
        tree = Tree()
        for name, child in node.items():
            tree.add(name.encode(), DIR_MODE, child if isinstance(child, bytes) else build(child))
        objects[tree.id] = tree
        return tree.id

    top = objects[build(shards)]
    root = Tree()
    for entry in base.iteritems():
        if entry.path == ROOT.encode():
            sys.exit(f"{home} already holds conversations")
        root.add(entry.path, entry.mode, entry.sha)
    root.add(ROOT.encode(), DIR_MODE, top.id)
    objects[root.id] = root
    commit = Commit()
    commit.tree, commit.parents = root.id, [old.encode()]
    commit.author = commit.committer = AUTHOR
    commit.author_time = commit.commit_time = int(now)
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = f"genstore: {conversations} conversations x {turns} turns\n".encode()
    objects[commit.id] = commit
    git_store.objects.add_objects([(obj, None) for obj in objects.values()])
    if not git_store.refs.set_if_equals(BRANCH, old.encode(), commit.id):
        sys.exit("the store moved during generation")
    t_pack = time.perf_counter()
    git(home, "gc", "--quiet")
    t_gc = time.perf_counter()
    fsck = subprocess.run(["git", "-C", str(home / "store.git"), "fsck", "--strict"], capture_output=True, text=True)
    if fsck.returncode or fsck.stdout.strip() or fsck.stderr.strip():
        sys.exit(f"git fsck --strict is not clean:\n{fsck.stdout}{fsck.stderr}")
    files = git(home, "ls-tree", "-r", "--name-only", "HEAD").count(f"{ROOT}/")
    if files != conversations * (turns + 1):
        sys.exit(f"expected {conversations * (turns + 1)} files, the tree holds {files}")
    t_fsck = time.perf_counter()
    index_seconds = refresh_index(home)
    (home / "ids.txt").write_text("\n".join(conv_ids) + "\n")
    info = {"conversations": conversations, "turns": turns, "format": FORMAT_VERSION, "commit": commit.id.decode(),
            "objects": len(objects)}
    (home / MARKER).write_text(json.dumps(info, indent=2) + "\n")
    print(f"genstore: {conversations} conversations x {turns} turns ({len(objects)} objects) in {home}")
    for what, seconds in (("render + build trees", t_render - t0), ("write pack + commit", t_pack - t_render),
                          ("git gc", t_gc - t_pack), ("git fsck --strict + ls-tree check", t_fsck - t_gc),
                          ("conv list (index build)", index_seconds),
                          ("total", time.perf_counter() - t0)):
        print(f"  {what:<36} {seconds:7.2f} s")
    return info


def git(home: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(home / "store.git"), *args], capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def refresh_index(home: Path) -> float:
    """One cold ``conv list``: brings the index to the store's commit."""
    return common.run(common.conv("list", "-n", "1"), common.child_env(home))


def ensure(home: Path, conversations: int, turns: int = 5, jobs: int | None = None) -> Path:
    """A store of that size in ``home``: reused when there, generated when not."""
    home = home.resolve()
    marker = home / MARKER
    if marker.exists():
        info = json.loads(marker.read_text())
        if (info["conversations"], info["turns"], info["format"]) == (conversations, turns, FORMAT_VERSION):
            if Store(home / "store.git").head() != info["commit"]:
                git(home, "update-ref", BRANCH.decode(), info["commit"])  # drop what benchmarks added
                refresh_index(home)  # a tree diff: needs the old commit, so before the prune
                git(home, "prune", "--expire=now")
            print(f"genstore: reusing {home} ({conversations} x {turns})", flush=True)
            return home
        shutil.rmtree(home)
    elif home.exists() and any(home.iterdir()):
        sys.exit(f"{home} is not empty and was not made by genstore.py; not touching it")
    home.mkdir(parents=True, exist_ok=True)
    generate(home, conversations, turns, jobs or os.cpu_count() or 1)
    return home


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--home", type=Path, default=None, help="CONV_HOME to fill (default tests/bench/out/store-NxT)")
    p.add_argument("--conversations", type=int, default=10_000)
    p.add_argument("--turns", type=int, default=5)
    p.add_argument("--jobs", type=int, default=None, help="rendering processes (default: one a core)")
    p.add_argument("--force", action="store_true", help="regenerate even if a store of that size is there")
    a = p.parse_args(argv)
    home = a.home or common.OUT / f"store-{a.conversations}x{a.turns}"
    if a.force and (home / MARKER).exists():
        shutil.rmtree(home)
    t = time.perf_counter()
    ensure(home, a.conversations, a.turns, a.jobs)
    print(f"genstore: ready in {time.perf_counter() - t:.2f} s: CONV_HOME={home.resolve()}")


if __name__ == "__main__":
    main()
