"""conv push / pull / sync against git push / fetch, at 10,000 conversations,
side by side in the same run, each command a whole new process.

Everything happens in tests/bench/out/sync/ (made afresh at every run,
removed at the end unless ``--keep``; one bench_sync at a time): a
copy of the generated 10,000 x 5 store (genstore.py; its branch put back to
the generated commit, its index current) is store A, and every remote is a
local bare repository (``git init --bare -b main``, a file path). Each conv
process gets common.child_env (its own CONV_HOME, no PYTHONDONTWRITEBYTECODE);
git gets the same environment. conv and git alternate which goes first.

Measured (medians):
  1. full push of A to an empty remote: ``conv push NAME`` against
     ``git push REMOTE main``, each to a remote made empty again before every
     run (``--full-runs``, default 5, one unmeasured warm-up each first);
  2. incremental push of one new exchange (``conv ask --cid ID q`` in A
     against tests/fakeserver.py running as its own process, unmeasured) to a
     remote holding the 10,000 conversations: ``conv push`` to one remote,
     ``git push`` to another in the same state (``--runs``, default 10);
  3. full fetch into a new store: ``conv remote add origin URL`` in an empty
     CONV_HOME (unmeasured, it creates the store), then ``conv pull origin``,
     against ``git fetch`` into a new ``git init --bare`` repository
     (``--pull-runs``, default 3: about a minute each);
     incremental fetch of one exchange: store B, a copy of A made when both
     were in step, pulls after each new exchange A pushed (``git push``,
     unmeasured) against ``git fetch`` of the same into a bare copy G;
  4. ``conv sync origin`` in B when there is nothing to do, against
     ``git fetch`` + ``git push`` (both no-ops) from G, as two processes.
What conv does beyond the transfer is in its times: its start-up, a
``git fetch`` before every push (to refuse pushing over commits the store
lacks), the merge (a fast-forward, or a merge commit), and bringing the index
(cache/index.sqlite) up to the new commit.

Beside the wall times, each side's CPU time (user + system of the process
and of the git processes it waited for, from getrusage): on a busy machine
the wall times of many short processes stretch, the CPU times much less.

Budget: incremental push, conv <= 1.5 x git (wall medians). The other ratios
are printed without a budget. One ``conv push`` (incremental, and one full)
and one ``conv sync`` with nothing to do run under cProfile, summarised
(``--profile pull`` adds one full ``conv pull``, about two minutes;
``--profile none`` skips them all).

    python tests/bench/bench_sync.py [--runs 10] [--full-runs 5] [--pull-runs 3] [--profile push|pull|none] [--keep]
"""

import argparse
import fcntl
import io
import os
import pstats
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

WORK = common.OUT / "sync"
RATIO_BUDGET = 1.5  # incremental push: conv's median <= 1.5 x git's
TRACKING = "+refs/heads/main:refs/remotes/origin/main"


# -- plumbing ----------------------------------------------------------------------


def git(git_dir: Path, *args: str) -> str:
    done = subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    if done.returncode:
        sys.exit(f"git --git-dir {git_dir} {' '.join(args)} failed: {done.stderr[-2000:]}")
    return done.stdout.strip()


def head(git_dir: Path, ref: str = "refs/heads/main") -> str:
    done = subprocess.run(["git", "--git-dir", str(git_dir), "rev-parse", "--verify", "--quiet", ref],
                          capture_output=True, text=True)
    return done.stdout.strip()


def empty_remote(path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    subprocess.run(["git", "init", "--quiet", "--bare", "-b", "main", str(path)], check=True)
    return path


def copy_home(src: Path, dst: Path) -> Path:
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, symlinks=True)
    return dst


def timed(cmd: list[str], env: dict) -> tuple[float, float]:
    """Wall seconds of one process (common.run) and the CPU seconds (user +
    system) it and every process it waited for used: on a busy machine the
    CPU time shows what the work costs, the wall time what it cost then."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = common.run(cmd, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def add(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return a[0] + b[0], a[1] + b[1]


def timed_pair(first: bool, conv_cmd: tuple, git_cmd: tuple) -> tuple[tuple, tuple]:
    """One run of each, (cmd, env) pairs, in the order ``first`` says:
    ((conv wall, conv cpu), (git wall, git cpu))."""
    if first:
        c = timed(*conv_cmd)
        g = timed(*git_cmd)
    else:
        g = timed(*git_cmd)
        c = timed(*conv_cmd)
    return c, g


def exchange(env: dict, conv_id: str) -> None:
    """One question and its answer in the store of ``env`` (the fake server answers)."""
    common.run(common.conv("ask", "--cid", conv_id, "and what about interactive mode?"), env)


# -- reporting ------------------------------------------------------------------------


def compare(label: str, conv_s: list[tuple], git_s: list[tuple], budget_ratio: float | None = None) -> dict:
    """conv_s, git_s: (wall, cpu) of each run. The ratio and verdict go by wall medians."""
    c, g = common.stats([w for w, _ in conv_s]), common.stats([w for w, _ in git_s])
    c_cpu, g_cpu = common.stats([u for _, u in conv_s]), common.stats([u for _, u in git_s])
    ratio = c["median"] / g["median"]
    verdict = "" if budget_ratio is None else ("ok" if ratio <= budget_ratio else "OVER")
    return {"label": label, "conv": c, "git": g, "conv_cpu": c_cpu, "git_cpu": g_cpu, "ratio": ratio,
            "budget": budget_ratio, "verdict": verdict}


def table(pairs: list[dict], n: int) -> None:
    print(f"\n  side by side @{n} (medians in ms; ratio = conv / git, wall times; cpu = user + system "
          f"of the process and its git children)")
    print(f"    {'measure':<40} {'conv':>9} {'git':>9} {'ratio':>7} {'budget':>9}  {'verdict':<7} "
          f"{'conv cpu':>9} {'git cpu':>9} {'ratio':>6}  n")
    for p in pairs:
        budget = f"<= {p['budget']:g}x" if p["budget"] is not None else "-"
        print(f"    {p['label']:<40} {p['conv']['median']:9.1f} {p['git']['median']:9.1f} {p['ratio']:7.2f} "
              f"{budget:>9}  {p['verdict'] or '-':<7} {p['conv_cpu']['median']:9.1f} {p['git_cpu']['median']:9.1f} "
              f"{p['conv_cpu']['median'] / max(p['git_cpu']['median'], 0.1):6.2f}  {p['conv']['n']}")


def rows_of(pairs: list[dict], n: int, git_labels: dict) -> list[dict]:
    """run_all.py's rows: conv's (budget in ms when there is one) and git's for reference."""
    rows = []
    for p in pairs:
        budget = None if p["budget"] is None else round(p["budget"] * p["git"]["median"], 1)
        conv_row = common.row(f"{p['label']} @{n}", p["conv"], budget)
        if budget is None:
            conv_row["verdict"] = f"conv/git {p['ratio']:.2f}"
        conv_row["verdict"] += f" (cpu {p['conv_cpu']['median'] / max(p['git_cpu']['median'], 0.1):.2f})"
        rows.append(conv_row)
        rows.append(common.row(f"  {git_labels[p['label']]} (reference) @{n}", p["git"]))
    return rows


def profile(args: list[str], env: dict, what: str, top: int = 25) -> None:
    """One ``conv ARGS`` under cProfile: where its time goes."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.prof"
        t = time.perf_counter()
        done = subprocess.run([common.PYTHON, "-m", "cProfile", "-o", str(out), str(common.CONV), *args], env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True)
        wall = time.perf_counter() - t
        if done.returncode:
            print(f"\n  cProfile of `conv {' '.join(args)}` failed ({done.returncode}): {done.stderr.strip()[-1000:]}")
            return
        st = pstats.Stats(str(out))
        text = io.StringIO()
        st.stream = text
        st.sort_stats("cumulative").print_stats(top * 4)
    phases = {  # (file ending, function) -> label
        ("bootstrap>", "_find_and_load"): "imports (all)",
        ("services/sync.py", "sync"): "services.sync.sync (the whole transfer)",
        ("store/repo/remotes.py", "fetch"): "  remotes.fetch (git fetch + rev-parse)",
        ("store/repo/remotes.py", "push"): "  remotes.push (git push --porcelain)",
        ("store/__init__.py", "merge_from"): "  Store.merge_from",
        ("store/repo/git.py", "merge_base"): "    GitStore.merge_base (git merge-base)",
        ("store/repo/git.py", "update"): "    GitStore.update (a merge commit)",
        ("index/__init__.py", "refresh"): "  Index.refresh (index to the new commit)",
        ("index/__init__.py", "_rebuild"): "    Index._rebuild",
        ("subprocess.py", "run"): "subprocess.run (every git process, waited for)",
    }
    found = {}
    for (file, _, func), (_, _, _, ct, _) in st.stats.items():
        for (ending, name), label in phases.items():
            if func == name and file.endswith(ending):
                found[label] = max(found.get(label, 0.0), ct)
    print(f"\n  cProfile of one `conv {' '.join(args)}` ({what}): {st.total_tt * 1000:.0f} ms profiled, "
          f"{wall * 1000:.0f} ms wall with the profiler")
    for label in phases.values():
        if label in found:
            print(f"    {found[label] * 1000:9.1f} ms  {label}")
    body = text.getvalue()
    print("    by cumulative time (importlib frames left out):")
    shown = 0
    for line in body[body.find("   ncalls"):].rstrip().splitlines():
        if "importlib" in line or "{built-in method builtins.exec}" in line:
            continue
        print(f"    {line[:160]}")
        shown += 1
        if shown > top:
            break


# -- the benchmark ---------------------------------------------------------------------


def prepare(n: int, turns: int) -> Path:
    """Store A: a copy of the generated store at its generated commit, index current."""
    import json

    src = common.store_home(n, turns)
    commit = json.loads((src / "genstore.json").read_text())["commit"]
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    home = WORK / "a"
    home.mkdir()
    shutil.copytree(src / "store.git", home / "store.git", symlinks=True)
    if (src / "cache").exists():
        shutil.copytree(src / "cache", home / "cache", symlinks=True)
    shutil.copy(src / "ids.txt", home / "ids.txt")
    store = home / "store.git"
    if head(store) != commit:  # another bench's exchanges: not ours to push
        git(store, "update-ref", "refs/heads/main", commit)
    for ref in git(store, "for-each-ref", "--format=%(refname)", "refs/remotes", "refs/conv").split():
        git(store, "update-ref", "-d", ref)
    common.run(common.conv("list", "-n", "1"), common.child_env(home))  # index to that commit (a tree diff)
    git(store, "prune", "--expire=now")
    return home


@contextmanager
def exclusive():
    """One bench_sync at a time: they share WORK (and would time each other)."""
    common.OUT.mkdir(parents=True, exist_ok=True)
    with open(common.OUT / "sync.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("bench_sync: waiting for another bench_sync to finish", flush=True)
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def main(argv=None) -> list[dict]:
    with exclusive():
        return _main(argv)


def _main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=10, help="incremental push, incremental pull, sync")
    p.add_argument("--full-runs", type=int, default=5, help="full push (about 2 s each)")
    p.add_argument("--pull-runs", type=int, default=3, help="full pull into a new store (about a minute each)")
    p.add_argument("--conversations", type=int, default=10_000)
    p.add_argument("--turns", type=int, default=5)
    p.add_argument("--profile", choices=("push", "pull", "none"), default="push",
                   help="push: cProfile one incremental and one full conv push; pull: and one full conv pull")
    p.add_argument("--keep", action="store_true", help=f"leave {WORK} (stores and remotes) for a look afterwards")
    a = p.parse_args(argv)
    n = a.conversations
    started = time.perf_counter()
    A = prepare(n, a.turns)
    store_a = A / "store.git"
    env_a = common.child_env(A)
    conv_ids = common.conversation_ids(A)
    pick = random.Random(2).sample(conv_ids, 2 * a.runs + 8)
    objects = git(store_a, "count-objects", "-v")
    size = next(line.split()[1] for line in objects.splitlines() if line.startswith("size-pack"))
    print(f"bench_sync: {n} conversations x {a.turns} turns in {A} ({int(size) / 1024:.0f} MB packed); "
          f"{shutil.which('git')} {git(store_a, 'version').split()[-1]}; load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} cores", flush=True)
    pairs = []
    git_labels = {}

    # 1. full push to an empty remote -------------------------------------------------
    full_c, full_g = WORK / "full-conv.git", WORK / "full-git.git"
    empty_remote(full_c)
    common.run(common.conv("remote", "add", "full", str(full_c)), env_a)
    conv_s, git_s = [], []
    for k in range(a.full_runs + 1):
        empty_remote(full_c), empty_remote(full_g)
        c, g = timed_pair(k % 2 == 0, (common.conv("push", "full"), env_a),
                          (["git", "--git-dir", str(store_a), "push", "--quiet", str(full_g), "main"], env_a))
        if head(full_c) != head(store_a) or head(full_g) != head(store_a):
            sys.exit("full push: a remote does not hold the store's commit")
        if k:  # the first is a warm-up
            conv_s.append(c), git_s.append(g)
    pairs.append(compare("full push to an empty remote", conv_s, git_s))
    git_labels[pairs[-1]["label"]] = "git push REMOTE main (empty remote)"
    print(f"  full push: conv {pairs[-1]['conv']['median']:.0f} ms, git {pairs[-1]['git']['median']:.0f} ms",
          flush=True)

    # 2. incremental push of one exchange -----------------------------------------------
    inc_c, inc_g, origin = WORK / "inc-conv.git", WORK / "inc-git.git", WORK / "origin.git"
    for remote in (inc_c, inc_g, origin):
        empty_remote(remote)
        git(store_a, "push", "--quiet", str(remote), "main")
    common.run(common.conv("remote", "add", "inc", str(inc_c)), env_a)
    common.run(common.conv("remote", "add", "origin", str(origin)), env_a)
    # store B and bare G: another machine in step with A and origin.git
    B = copy_home(A, WORK / "b")
    G = WORK / "g.git"
    shutil.copytree(store_a, G, symlinks=True)
    env_b = common.child_env(B)
    common.run(common.conv("pull", "origin"), env_b)  # up to date: sets B's tracking ref
    git(G, "fetch", "--quiet", "--no-tags", str(origin), TRACKING)

    with common.fake_server() as url:
        env_ask = common.child_env(A, url)
        conv_s, git_s = [], []
        for k in range(a.runs + 1):
            exchange(env_ask, pick.pop())
            c, g = timed_pair(k % 2 == 0, (common.conv("push", "inc"), env_a),
                              (["git", "--git-dir", str(store_a), "push", "--quiet", str(inc_g), "main"], env_a))
            if not head(inc_c) == head(inc_g) == head(store_a):
                sys.exit("incremental push: a remote does not hold the store's commit")
            if k:
                conv_s.append(c), git_s.append(g)
        pairs.append(compare("incremental push, one exchange", conv_s, git_s, RATIO_BUDGET))
        git_labels[pairs[-1]["label"]] = "git push REMOTE main (one exchange)"
        print(f"  incremental push: conv {pairs[-1]['conv']['median']:.0f} ms, "
              f"git {pairs[-1]['git']['median']:.0f} ms", flush=True)

        # 3b. incremental fetch: B and G one exchange behind origin.git ---------------------
        conv_s, git_s = [], []
        for k in range(a.runs + 1):
            exchange(env_ask, pick.pop())
            git(store_a, "push", "--quiet", str(origin), "main")
            c, g = timed_pair(k % 2 == 0, (common.conv("pull", "origin"), env_b),
                              (["git", "--git-dir", str(G), "fetch", "--quiet", "--no-tags", str(origin), TRACKING],
                               env_a))
            if not head(B / "store.git") == head(G, "refs/remotes/origin/main") == head(store_a):
                sys.exit("incremental pull: B or G does not hold origin's commit")
            if k:
                conv_s.append(c), git_s.append(g)
        inc_pull = compare("incremental pull, one exchange behind", conv_s, git_s)
        git_labels[inc_pull["label"]] = "git fetch REMOTE (one exchange behind)"
        print(f"  incremental pull: conv {inc_pull['conv']['median']:.0f} ms, "
              f"git {inc_pull['git']['median']:.0f} ms", flush=True)

        # 4. sync with nothing to do ------------------------------------------------------
        git(G, "update-ref", "refs/heads/main", "refs/remotes/origin/main")
        git_fetch = ["git", "--git-dir", str(G), "fetch", "--quiet", "--no-tags", str(origin), TRACKING]
        git_push = ["git", "--git-dir", str(G), "push", "--quiet", str(origin), "main"]
        conv_s, git_s = [], []
        for k in range(a.runs + 1):
            if k % 2 == 0:
                c = timed(common.conv("sync", "origin"), env_b)
                g = add(timed(git_fetch, env_a), timed(git_push, env_a))
            else:
                g = add(timed(git_fetch, env_a), timed(git_push, env_a))
                c = timed(common.conv("sync", "origin"), env_b)
            if k:
                conv_s.append(c), git_s.append(g)
        if head(B / "store.git") != head(origin):
            sys.exit("sync with nothing to do moved something")
        nothing = compare("sync, nothing to do", conv_s, git_s)
        git_labels[nothing["label"]] = "git fetch + git push, both no-ops"

        if a.profile != "none":
            exchange(env_ask, pick.pop())
            profile(["push", "inc"], env_a, "incremental: one exchange, remote holding the rest")
            empty_remote(full_c)
            profile(["push", "full"], env_a, "full: empty remote")
            profile(["sync", "origin"], env_b, "nothing to do")

    # 3a. full fetch into a new store -------------------------------------------------------
    new_home, new_git = WORK / "new", WORK / "new.git"
    conv_s, git_s = [], []
    for k in range(a.pull_runs):
        shutil.rmtree(new_home, ignore_errors=True)
        empty_remote(new_git)
        env_new = common.child_env(new_home)
        common.run(common.conv("remote", "add", "origin", str(origin)), env_new)  # creates the store
        c, g = timed_pair(k % 2 == 0, (common.conv("pull", "origin"), env_new),
                          (["git", "--git-dir", str(new_git), "fetch", "--quiet", "--no-tags", str(origin), TRACKING],
                           env_a))
        theirs = git(origin, "rev-parse", "main:conversations")
        if git(new_home / "store.git", "rev-parse", "main:conversations") != theirs:
            sys.exit("full pull: the new store does not hold origin's conversations")
        if head(new_git, "refs/remotes/origin/main") != head(origin):
            sys.exit("full fetch: the new repository does not hold origin's commit")
        conv_s.append(c), git_s.append(g)
        print(f"  full pull {k + 1}/{a.pull_runs}: conv {c[0]:.1f} s (cpu {c[1]:.1f} s), "
              f"git {g[0]:.1f} s (cpu {g[1]:.1f} s)", flush=True)
    kind = git(new_home / "store.git", "log", "-1", "--format=%s (parents %p)", "main")
    same_tree = git(new_home / "store.git", "rev-parse", "main^{tree}") == git(origin, "rev-parse", "main^{tree}")
    counts = dict(line.split(": ") for line in git(new_home / "store.git", "count-objects", "-v").splitlines())
    full_pull = compare("full pull into a new store", conv_s, git_s)
    git_labels[full_pull["label"]] = "git fetch REMOTE into git init --bare"
    pairs += [full_pull, inc_pull, nothing]
    print(f"  (the new store's head after conv pull: {kind}, its tree {'the same as' if same_tree else 'not'} "
          f"origin's; {counts['count']} loose objects, {counts['prune-packable']} of them also in a pack; index "
          f"{(new_home / 'cache' / 'index.sqlite').stat().st_size / 2**20:.0f} MB)")
    if a.profile == "pull":
        shutil.rmtree(new_home, ignore_errors=True)
        env_new = common.child_env(new_home)
        common.run(common.conv("remote", "add", "origin", str(origin)), env_new)
        profile(["pull", "origin"], env_new, "full: into a new store")
    if not a.keep:
        shutil.rmtree(WORK, ignore_errors=True)

    print(f"\n  (bench_sync: {time.perf_counter() - started:.0f} s; load average {os.getloadavg()[0]:.2f} at end)")
    table(pairs, n)
    return rows_of(pairs, n, git_labels)


if __name__ == "__main__":
    started, load = time.perf_counter(), os.getloadavg()[0]
    results = main()
    common.summary(results, "sync", started, load)
