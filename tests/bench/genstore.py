"""Fill a conv store fast: N conversations x T turns in one commit (or with history).

The files are exactly what conv writes: conv's own ``Conversation.to_text()``
and ``Turn.to_text()`` render them, ``conv.ids`` names conversations, turns
and paths, and ``conv.store.Store`` creates the repository. Only the commits
differ: instead of one commit per turn, every blob and tree is built with
dulwich (trees bottom-up: conversation, shard, ``conversations/``, root) and
written as one pack (with its index, by dulwich's write_pack) under a single commit. ``git gc`` then repacks it (deltas,
packed-refs, commit-graph) like a maintained store, ``git fsck --strict``
checks it, and one ``conv list`` builds the SQLite index.

Rendering goes through ruamel.yaml (~0.6 ms a file), so it runs on every core.

    python tests/bench/genstore.py --home DIR --conversations 10000 --turns 5

``--commits per-conversation`` gives the store a history instead: every
conversation arrives in a commit of its own (``<id>: ask``, dated at its last
turn), in time order; ``--commits per-turn`` makes one commit per turn the
way ``conv ask`` does (``<id>: ask`` with conversation.md and the question,
``<id>: answer (gpt-4o-mini, N tokens)``), all conversations' turns
interleaved by time. The chain is built in memory with dulwich (about 2,000
commits a second) rather than through ``Store.add_turns`` (4 to 15 ms a
commit, and loose objects to repack): the first commits are made a second
time through conv's own writer (``GitStore.update``) in a scratch repository,
and their trees must come out identical. Such stores also sprinkle a rare
word (``zeppelin``, about one turn in 500) for search benchmarks, and go to
``tests/bench/out/store-NxT-per-conversation`` (or ``-per-turn``) by default.

DIR gets ``store.git``, ``cache/index.sqlite``, ``ids.txt`` (one id a line),
``conversations.jsonl`` (what was generated, one conversation a line: id,
created, title, model, and each turn's role, content, time and usage; for
filling other tools' databases with the same text) and ``genstore.json``.
If DIR already holds a store of that size it is reused: its branch is moved
back to the generated commit (undoing what benchmarks added) and the index
caught up.
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

from conv.format import ids  # noqa: E402
from conv.format.model import FORMAT_VERSION, Conversation, Turn  # noqa: E402
from conv.store import Store  # noqa: E402
from conv.store.layout import META_FILE, ROOT  # noqa: E402

BRANCH = b"refs/heads/main"
COMMITS = ("single", "per-conversation", "per-turn")  # --commits: how the conversations arrive
RARE_WORD, RARE_RATE = "zeppelin", 0.002  # with history: in about one turn in 500
VERIFY_COMMITS = 30  # commits of a history also made through conv's own writer, to compare
DIR_MODE = stat.S_IFDIR
FILE_MODE = stat.S_IFREG | 0o644
MARKER = "genstore.json"

WORDS = ("git rebase commit branch merge conflict python function class module import test fixture "
         "the a of to and in is it that for on with as this be are by you can not use when what how "
         "why file path tree blob index cache server request response stream token model prompt answer "
         "question error retry timeout value list dict string bytes object store lock signal process").split()

from conv.format.naming import title_from  # noqa: E402  conv's own title rule


def _text(rnd: random.Random, low: int, high: int) -> str:
    words = rnd.choices(WORDS, k=rnd.randint(low, high))  # one call: choice() a word took 60 % of the render
    paras, out = rnd.randint(1, 4), []
    step = max(1, len(words) // paras)
    for n in range(0, len(words), step):
        out.append(" ".join(words[n:n + step]).capitalize() + ".")
    if high > 100 and rnd.random() < 0.3:
        out.insert(1, "```python\ndef f(x):\n    return x * 2\n```")
    return "\n\n".join(out)


def render(job: tuple) -> tuple[str, list[tuple[str, bytes]], dict]:
    """One conversation: its id, (file name, content) of each file, and what
    was generated as plain data (the record conversations.jsonl holds).
    ``job`` is (n, seed, turns, now) or (n, seed, turns, now, rare): with
    ``rare``, a turn now and then ends with RARE_WORD (drawn from a generator
    of its own, so the rest of the text is the same either way)."""
    n, seed, turns, now, rare = (*job, False)[:5]
    rnd = random.Random(seed * 1_000_003 + n)
    sprinkle = random.Random(seed * 7_000_003 + n)
    conv_id = ids.new_conversation_id("coder" if rnd.random() < 0.05 else None)
    created = datetime.fromtimestamp(now - rnd.uniform(3600, 365 * 86400), timezone.utc)
    moment, parent, files, first, records = created, None, [], None, []
    for k in range(turns):
        role = "user" if k % 2 == 0 else "assistant"
        moment += timedelta(seconds=rnd.uniform(1, 90))
        name = ids.new_turn_name(role, moment)
        stamp = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
        if role == "user":
            text = _text(rnd, 5, 60)
            usage = None
        else:
            done = rnd.randint(40, 400)
            text = _text(rnd, done, done)
            usage = {"prompt_tokens": rnd.randint(10, 4000), "completion_tokens": done}
        if rare and sprinkle.random() < RARE_RATE:
            text = text[:-1] + f" {RARE_WORD}." if text.endswith(".") else f"{text}\n\n{RARE_WORD.capitalize()}."
        if role == "user":
            turn = Turn(name, role, text, stamp, parent)
            first = first or turn.content
        else:
            turn = Turn(name, role, text, stamp, parent, model="gpt-4o-mini", provider="openai", usage=usage,
                        finish="stop")
        files.append((f"{name}.md", turn.to_text().encode()))
        records.append({"name": name, "role": role, "content": text, "created": stamp, "time": moment.timestamp(),
                        "usage": usage})
        parent = name
    stamp = created.strftime("%Y-%m-%dT%H:%M:%S.") + f"{created.microsecond // 1000:03d}Z"
    meta = Conversation(conv_id, stamp, title=title_from(first or ""), model="gpt-4o-mini",
                        provider="openai")
    files.append((META_FILE, meta.to_text().encode()))
    record = {"id": conv_id, "created": stamp, "time": created.timestamp(), "title": meta.title,
              "model": "gpt-4o-mini", "provider": "openai", "turns": records}
    return conv_id, files, record


def generate(home: Path, conversations: int, turns: int, jobs: int, seed: int = 1, commits: str = "single",
             upkeep: bool = True) -> dict:
    """Generate the store; ``upkeep`` False leaves out git gc and the fsck check
    (a store made as fast as it can be: one pack without deltas)."""
    from dulwich.objects import Blob

    t0 = time.perf_counter()
    store = Store(home / "store.git")
    git_store = store._repo  # creates the repository the way conv does (README, config)
    old = store.head()
    base = git_store.objects[git_store.objects[old.encode()].tree]
    if any(entry.path == ROOT.encode() for entry in base.iteritems()):
        sys.exit(f"{home} already holds conversations")
    objects: dict[bytes, object] = {}
    convs: list[tuple[str, list[tuple[str, bytes]]]] = []  # id, (file name, blob id) of each file
    records = []
    now = time.time()
    with Pool(jobs) as pool:
        work = [(n, seed, turns, now, commits != "single") for n in range(conversations)]
        for conv_id, files, record in pool.imap(render, work, 64):
            blobs = []
            for name, data in files:
                blob = Blob.from_string(data)
                objects[blob.id] = blob
                blobs.append((name, blob.id))
            convs.append((conv_id, blobs))
            records.append(record)
    t_render = time.perf_counter()
    if commits == "single":
        head = _one_commit(objects, base, old, convs, now, f"genstore: {conversations} conversations x {turns} turns")
        made, checked = 1, ""
    else:
        chain = _history(objects, base, old, convs, records, commits)
        head, made = chain[-1][0], len(chain)
        checked = _verify(home, objects, convs, chain[:VERIFY_COMMITS])
    t_build = time.perf_counter()
    _write_pack(home / "store.git", objects)
    if not git_store.refs.set_if_equals(BRANCH, old.encode(), head):
        sys.exit("the store moved during generation")
    t_pack = time.perf_counter()
    if upkeep:
        Store(home / "store.git").upkeep.gc()  # as conv gc packs it
    t_gc = time.perf_counter()
    if upkeep:
        _check(home, conversations, turns, made)
    t_fsck = time.perf_counter()
    index_seconds = refresh_index(home)
    (home / "ids.txt").write_text("\n".join(conv_id for conv_id, _ in convs) + "\n")
    with open(home / "conversations.jsonl", "w") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    info = {"conversations": conversations, "turns": turns, "format": FORMAT_VERSION, "commit": head.decode(),
            "objects": len(objects), "commits": commits, "commits_made": made}
    (home / MARKER).write_text(json.dumps(info, indent=2) + "\n")
    print(f"genstore: {conversations} conversations x {turns} turns, {made} commit{'s' * (made != 1)} "
          f"({len(objects)} objects) in {home}")
    if checked:
        print(f"  {checked}")
    for what, seconds in (("render", t_render - t0), ("build trees + commits", t_build - t_render),
                          ("write pack + move branch", t_pack - t_build),
                          ("git gc", t_gc - t_pack), ("git fsck --strict + ls-tree check", t_fsck - t_gc),
                          ("conv list (index build)", index_seconds),
                          ("total", time.perf_counter() - t0)):
        print(f"  {what:<36} {seconds:7.2f} s")
    return info


def _tree(entries: dict[str, tuple[int, bytes]], objects: dict) -> bytes:
    from dulwich.objects import Tree

    tree = Tree()
    for name, (mode, sha) in entries.items():
        tree.add(name.encode(), mode, sha)
    objects[tree.id] = tree
    return tree.id


def _commit(objects: dict, tree: bytes, parent: bytes, when: float, message: str) -> bytes:
    from dulwich.objects import Commit

    from conv.store.repo.git import AUTHOR

    commit = Commit()
    commit.tree, commit.parents = tree, [parent]
    commit.author = commit.committer = AUTHOR
    commit.author_time = commit.commit_time = int(when)
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = message.encode() + b"\n"
    objects[commit.id] = commit
    return commit.id


def _one_commit(objects: dict, base, old: str, convs: list, now: float, message: str) -> bytes:
    """Every conversation in a single commit on top of ``old``."""
    shards: dict = {}  # nested: shard directory -> ... -> conversation id -> tree id
    for conv_id, blobs in convs:
        node = shards
        for part in ids.shard_of(conv_id).split("/"):
            node = node.setdefault(part, {})
        node[conv_id] = _tree({name: (FILE_MODE, sha) for name, sha in blobs}, objects)

    def build(node: dict) -> bytes:
        return _tree({name: (DIR_MODE, child if isinstance(child, bytes) else build(child))
                      for name, child in node.items()}, objects)

    root = {entry.path.decode(): (entry.mode, entry.sha) for entry in base.iteritems()}
    root[ROOT] = (DIR_MODE, build(shards))
    return _commit(objects, _tree(root, objects), old.encode(), now, message)


def _history(objects: dict, base, old: str, convs: list, records: list, commits: str) -> list[tuple]:
    """A chain of commits on top of ``old``, one per conversation or per turn,
    in time order; each rewrites the trees on the path to what it changed,
    as conv's writer does. Returns (commit id, tree id, changes, message) of
    each commit, oldest first (changes: path -> blob id)."""
    events = []  # (time, conversation, turn, {file name: blob id}, message)
    for n, ((conv_id, blobs), record) in enumerate(zip(convs, records)):
        meta = blobs[-1]  # conversation.md comes last, the turns in order before it
        if commits == "per-conversation":
            events.append((record["turns"][-1]["time"], n, 0, dict(blobs), f"{conv_id}: ask"))
            continue
        for k, (turn, (name, sha)) in enumerate(zip(record["turns"], blobs)):
            files = {name: sha, **({meta[0]: meta[1]} if k == 0 else {})}
            if turn["role"] == "user":
                message = f"{conv_id}: ask"
            else:
                tokens = turn["usage"]["completion_tokens"]
                message = f"{conv_id}: answer ({record['model']}, {tokens} token{'s' * (tokens != 1)})"
            events.append((turn["time"], n, k, files, message))
    events.sort(key=lambda e: e[:3])
    root_entries = {entry.path.decode(): (entry.mode, entry.sha) for entry in base.iteritems()}
    state: dict = {}  # c1 -> c2 -> conversation id -> {file name: blob id}
    conv_trees, c2_trees, c1_trees = {}, {}, {}
    parent, chain = old.encode(), []
    for when, n, _, files, message in events:
        conv_id = convs[n][0]
        c1, c2 = ids.shard_of(conv_id).split("/")
        shard = state.setdefault(c1, {}).setdefault(c2, {})
        shard.setdefault(conv_id, {}).update(files)
        conv_trees[conv_id] = _tree({name: (FILE_MODE, sha) for name, sha in shard[conv_id].items()}, objects)
        c2_trees[c1, c2] = _tree({cid: (DIR_MODE, conv_trees[cid]) for cid in shard}, objects)
        c1_trees[c1] = _tree({x: (DIR_MODE, c2_trees[c1, x]) for x in state[c1]}, objects)
        top = _tree({x: (DIR_MODE, c1_trees[x]) for x in state}, objects)
        root = _tree({**root_entries, ROOT: (DIR_MODE, top)}, objects)
        parent = _commit(objects, root, parent, when, message)
        where = ids.conversation_path(conv_id)
        chain.append((parent, root, {f"{where}/{name}": sha for name, sha in files.items()}, message))
    return chain


def _verify(home: Path, objects: dict, convs: list, chain: list[tuple]) -> str:
    """Make the first commits again through conv's own writer in a scratch
    repository: the trees must be the very same."""
    scratch = home / ".verify"
    shutil.rmtree(scratch, ignore_errors=True)
    try:
        writer = Store(scratch / "store.git")._repo  # the store's own writer, GitStore
        t = time.perf_counter()
        for _, root, changes, message in chain:
            content = {path: objects[sha].data for path, sha in changes.items()}
            _, new = writer.update(lambda snap: (content, message))
            if writer.objects[new.encode()].tree != root:
                sys.exit(f"genstore's tree for {message!r} differs from what conv's writer makes")
        per_commit = (time.perf_counter() - t) / max(1, len(chain)) * 1000
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return (f"the first {len(chain)} commits made again by conv's writer (GitStore.update): same trees; "
            f"{per_commit:.1f} ms a commit that way")


def git(home: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(home / "store.git"), *args], capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def refresh_index(home: Path) -> float:
    """One cold ``conv list``: brings the index to the store's commit."""
    return common.run(common.conv("list", "-n", "1"), common.child_env(home))


def _write_pack(repo: Path, objects: dict) -> None:
    """Every object in one pack with its index, written straight (dulwich's
    add_objects reads a pack back to index it: 4 of its 5 s at 6,000 x 2)."""
    from dulwich.object_format import DEFAULT_OBJECT_FORMAT
    from dulwich.pack import write_pack

    folder = repo / "objects" / "pack"
    scratch = str(folder / f"tmp-genstore-{os.getpid()}")
    data_sum, _ = write_pack(scratch, list(objects.values()), DEFAULT_OBJECT_FORMAT)
    for suffix in (".pack", ".idx"):
        os.rename(scratch + suffix, folder / f"pack-{data_sum.hex()}{suffix}")


def _check(home: Path, conversations: int, turns: int, made: int) -> None:
    """git fsck --strict is clean, and the tree and history hold what was made."""
    fsck = subprocess.run(["git", "-C", str(home / "store.git"), "fsck", "--strict"], capture_output=True, text=True)
    if fsck.returncode or fsck.stdout.strip() or fsck.stderr.strip():
        sys.exit(f"git fsck --strict is not clean:\n{fsck.stdout}{fsck.stderr}")
    files = git(home, "ls-tree", "-r", "--name-only", "HEAD").count(f"{ROOT}/")
    if files != conversations * (turns + 1):
        sys.exit(f"expected {conversations * (turns + 1)} files, the tree holds {files}")
    in_history = int(git(home, "rev-list", "--count", "HEAD"))
    if in_history != made + 1:
        sys.exit(f"expected {made + 1} commits, the branch has {in_history}")


def ensure(home: Path, conversations: int, turns: int = 5, jobs: int | None = None, commits: str = "single",
           upkeep: bool = True) -> Path:
    """A store of that size (and history, see ``--commits``) in ``home``:
    reused when there, generated when not."""
    if commits not in COMMITS:
        raise ValueError(f"commits must be one of {COMMITS}, not {commits!r}")
    home = home.resolve()
    marker = home / MARKER
    if marker.exists():
        info = json.loads(marker.read_text())
        if ((info["conversations"], info["turns"], info["format"], info.get("commits", "single"))
                == (conversations, turns, FORMAT_VERSION, commits)):
            if Store(home / "store.git").head() != info["commit"]:
                git(home, "update-ref", BRANCH.decode(), info["commit"])  # drop what benchmarks added
                refresh_index(home)  # a tree diff: needs the old commit, so before the prune
                git(home, "prune", "--expire=now")
            print(f"genstore: reusing {home} ({conversations} x {turns}, commits {commits})", flush=True)
            return home
        shutil.rmtree(home)
    elif home.exists() and any(home.iterdir()):
        sys.exit(f"{home} is not empty and was not made by genstore.py; not touching it")
    home.mkdir(parents=True, exist_ok=True)
    generate(home, conversations, turns, jobs or os.cpu_count() or 1, commits=commits, upkeep=upkeep)
    return home


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--home", type=Path, default=None,
                   help="CONV_HOME to fill (default tests/bench/out/store-NxT, with -per-conversation or -per-turn)")
    p.add_argument("--conversations", type=int, default=10_000)
    p.add_argument("--turns", type=int, default=5)
    p.add_argument("--jobs", type=int, default=None, help="rendering processes (default: one a core)")
    p.add_argument("--commits", choices=COMMITS, default="single",
                   help="single: all conversations in one commit; per-conversation: a commit each (<id>: ask); "
                        "per-turn: a commit per turn, as conv ask makes them")
    p.add_argument("--commits-per-conversation", dest="commits", action="store_const", const="per-conversation",
                   help="the same as --commits per-conversation")
    p.add_argument("--force", action="store_true", help="regenerate even if a store of that size is there")
    p.add_argument("--no-upkeep", dest="upkeep", action="store_false",
                   help="leave out git gc and the fsck check: one pack without deltas, made fastest")
    a = p.parse_args(argv)
    home = a.home or common.store_dir(a.conversations, a.turns, a.commits)
    if a.force and (home / MARKER).exists():
        shutil.rmtree(home)
    t = time.perf_counter()
    ensure(home, a.conversations, a.turns, a.jobs, a.commits, a.upkeep)
    print(f"genstore: ready in {time.perf_counter() - t:.2f} s: CONV_HOME={home.resolve()}")


if __name__ == "__main__":
    main()
