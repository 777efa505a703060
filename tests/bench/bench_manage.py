"""Browsing a store of 10,000 conversations / 50,000 turns with a history,
as cold processes, and the same conversations in ``llm``'s logs.db.

The store (genstore.py ``--commits per-conversation``) has one commit per
conversation (``<id>: ask``), about 10,000 in all, so ``conv log`` has a
real history to look through, and a rare word (``zeppelin``, about one turn
in 500) beside the common ones. Measured, each a whole new process (stdin
empty, stdout a pipe, no PYTHONDONTWRITEBYTECODE; each command run once
unmeasured first, the index current), wall time and, beside it, the CPU time
(user + system) the process used, which other work on a shared machine
moves much less; the commands take turns, one run each per round:
  * ``conv list -n 50``;
  * ``conv search rebase`` (a word in nearly every answer) and
    ``conv search zeppelin`` (rare);
  * ``conv log REF`` (REF: a conversation's short id, as conv list shows it);
  * for reference, git's own ``git log --oneline -- <that conversation's
    folder>`` on the same repository (after git gc, as ``conv gc`` leaves
    it: packed, with a commit-graph; and once more with the commit-graph
    turned off), and a bare ``python -c pass``.

Side by side, ``llm`` (the current release from PyPI, in its own venv under
tests/bench/out/llm-venv, made once and reused) with a logs.db holding the
same conversations (genllm.py: same texts and exchanges, written through
llm's own LogStore), run with LLM_USER_PATH at that db's folder:
  * ``llm logs list -n 50`` against ``conv list -n 50``;
  * ``llm logs -q WORD`` (llm's turn_search FTS5 index) against
    ``conv search WORD``;
  * ``llm logs list --cid THREAD -n 0`` (a conversation's exchanges, the
    nearest llm has to a history) against ``conv log REF``;
  * ``llm --version``, llm's bare start-up, for reference.
The ratio printed is conv's median over llm's (wall time, and CPU time).
The outputs differ: conv lists one line per conversation, llm prints each
exchange in full (50 prompts and answers for ``-n 50``; 3 entries for
``-q`` by default, 20 conversations for conv search).

Budgets (medians): list <= 150 ms, search <= 150 ms, log <= 200 ms.
A conv command over its budget gets ``-X importtime`` and cProfile of one
run printed (``--profile`` does it for all of them).

    python tests/bench/bench_manage.py [--runs 20] [--git-runs 5] [--no-llm] [--profile]
                                       [--commits per-turn]  # 50,000 commits
"""

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

from conv.format import ids  # noqa: E402

LIST_BUDGET_MS = 150
SEARCH_BUDGET_MS = 150
LOG_BUDGET_MS = 200
COMMON_WORD, RARE_WORD = "rebase", "zeppelin"
LLM_VENV = common.OUT / "llm-venv"
GENLLM = common.BENCH / "genllm.py"


# -- llm, in a venv of its own ---------------------------------------------------------


def llm_venv() -> tuple[Path, str]:
    """The llm console script and llm's version; the venv is made on first use."""
    llm = LLM_VENV / "bin" / "llm"
    if not llm.exists():
        print(f"bench_manage: installing llm into {LLM_VENV}", flush=True)
        t = time.perf_counter()
        if not common.venv(LLM_VENV, ["llm"], "import llm"):
            sys.exit(f"bench_manage: installing llm into {LLM_VENV} failed")
        print(f"bench_manage: llm installed in {time.perf_counter() - t:.1f} s", flush=True)
    version = subprocess.run([str(LLM_VENV / "bin" / "python"), "-c",
                              "from importlib.metadata import version; print(version('llm'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    return llm, version


def llm_db(home: Path, version: str) -> tuple[Path, dict]:
    """A folder with a logs.db holding ``home``'s conversations (made once per
    store commit and llm version, then reused)."""
    store = json.loads((home / "genstore.json").read_text())
    where = common.OUT / f"llm-{home.name}"
    marker = where / "genllm.json"
    if marker.exists():
        info = json.loads(marker.read_text())
        if (info.get("source_commit"), info.get("llm")) == (store["commit"], version) and (where / "logs.db").exists():
            print(f"genllm: reusing {where / 'logs.db'} (llm {version})", flush=True)
            return where, info
    source = home / "conversations.jsonl"
    if not source.exists():
        sys.exit(f"{source} is missing: regenerate the store with genstore.py --force")
    where.mkdir(parents=True, exist_ok=True)
    marker.unlink(missing_ok=True)
    print(f"genllm: filling {where / 'logs.db'} through llm {version}'s LogStore", flush=True)
    done = subprocess.run([str(LLM_VENV / "bin" / "python"), str(GENLLM), "--source", str(source),
                           "--db", str(where / "logs.db")], capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"genllm.py failed:\n{done.stdout}{done.stderr[-3000:]}")
    info = {**json.loads(done.stdout.strip().splitlines()[-1]), "source_commit": store["commit"]}
    same_as_store(where / "logs.db", source)
    marker.write_text(json.dumps(info, indent=2) + "\n")
    print(f"genllm: {info['threads']} threads, {info['turns']} turns ({info['texts']} texts) "
          f"in {info['seconds']:.1f} s", flush=True)
    return where, info


def same_as_store(db: Path, source: Path) -> None:
    """Read the logs.db back with conv's own llm importer: every conversation
    must come out with the roles and texts the store holds, in order."""
    from conv import importers, sources

    stored = set()
    with open(source) as f:
        for line in f:
            stored.add(tuple((t["role"], t["content"]) for t in json.loads(line)["turns"]))
    read = importers.read(sources.source("llm").reader(), db)
    found = [tuple((t.role, t.content) for t in c.turns) for c in read.conversations]
    if len(found) != len(stored) or not stored.issuperset(found):
        sys.exit(f"{db} does not hold the store's conversations ({len(found)} read back, "
                 f"{sum(f in stored for f in found)} of {len(stored)} the same)")
    print(f"genllm: read back with conv's llm importer: the same {len(found)} conversations, texts and roles",
          flush=True)


def llm_env(home: Path, folder: Path) -> dict:
    env = {k: v for k, v in common.child_env(home).items() if not k.startswith("LLM_")}
    env["LLM_USER_PATH"] = str(folder)
    return env


def thread_of(folder: Path, record: dict) -> str:
    """The llm thread holding the conv conversation ``record``: the one whose
    first prompt is that conversation's first question."""
    import sqlite3

    db = sqlite3.connect(f"file:{folder / 'logs.db'}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT t.thread_id FROM turns t JOIN parts p ON p.message_hash = t.parent_message_hash "
                         "WHERE p.text = ? ORDER BY t.id LIMIT 1", (record["turns"][0]["content"],)).fetchone()
    finally:
        db.close()
    if row is None:
        sys.exit(f"no llm thread holds conversation {record['id']}")
    return row[0]


# -- conv --------------------------------------------------------------------


def short_ref(conv_id: str, all_ids: list[str]) -> str:
    """The shortest prefix (six characters at least) that no other id starts
    or ends with: what a user types after reading conv list."""
    for n in range(6, len(conv_id)):
        prefix = conv_id[:n]
        if not any(o != conv_id and (o.startswith(prefix) or o.endswith(prefix)) for o in all_ids):
            return prefix
    return conv_id


def json_of(cmd: list[str], env: dict):
    done = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if done.returncode and not common.found_nothing(cmd, done.returncode):
        raise subprocess.CalledProcessError(done.returncode, cmd, done.stdout, done.stderr)
    return json.loads(done.stdout)


def timed(cmd: list[str], env: dict) -> tuple[float, float]:
    """Wall time of one process (common.run) and the CPU time (user + system)
    it and the children it waited for used: the second is much less moved by
    other work on the machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = common.run(cmd, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def round_robin(commands: dict[str, tuple[list[str], dict, int]]) -> dict[str, tuple[dict, dict]]:
    """name -> (wall stats, CPU stats). Each command runs once unmeasured,
    then the commands take turns, one run each per round (a command with
    fewer runs drops out early), so a change in the machine's load falls on
    all of them alike."""
    for cmd, env, _ in commands.values():
        common.run(cmd, env)  # warm-up: bytecode written, files in the page cache
    samples: dict[str, list] = {name: [] for name in commands}
    for round_ in range(max(r for _, _, r in commands.values())):
        for name, (cmd, env, runs) in commands.items():
            if round_ < runs:
                samples[name].append(timed(cmd, env))
    return {name: (common.stats([w for w, _ in got]), common.stats([c for _, c in got]))
            for name, got in samples.items()}


def profile(args: list[str], env: dict, top: int = 12) -> None:
    """One run of ``conv ARGS`` under -X importtime, then under cProfile."""
    cmd = [common.PYTHON, "-X", "importtime", str(common.CONV), *args]
    err = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True).stderr
    common.show_importtime(err, f"conv {' '.join(args)}", top, indent="  ")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.prof"
        subprocess.run([common.PYTHON, "-m", "cProfile", "-o", str(out), str(common.CONV), *args], env=env,
                       stdin=subprocess.DEVNULL, capture_output=True, check=True)
        import io
        import pstats

        text = io.StringIO()
        pstats.Stats(str(out), stream=text).sort_stats("cumulative").print_stats(top * 2)
    body = text.getvalue()
    print("    cProfile, by cumulative time:")
    for line in body[body.find("   ncalls"):].rstrip().splitlines():
        print(f"    {line[:150]}")


# -- the benchmark --------------------------------------------------------------


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--git-runs", type=int, default=5, help="runs of git log (about 1.5 s each)")
    p.add_argument("--conversations", type=int, default=10_000)
    p.add_argument("--turns", type=int, default=5)
    p.add_argument("--commits", default="per-conversation", choices=("per-conversation", "per-turn"),
                   help="the store's history (genstore.py --commits): per-turn has five times the commits")
    p.add_argument("--no-llm", action="store_true", help="conv (and git) only")
    p.add_argument("--profile", action="store_true", help="importtime and cProfile of every conv command")
    a = p.parse_args(argv)
    n, runs = a.conversations, a.runs

    t = time.perf_counter()
    home = common.store_home(n, a.turns, a.commits)
    store_seconds = time.perf_counter() - t
    made = json.loads((home / "genstore.json").read_text())
    records = {}
    with open(home / "conversations.jsonl") as f:
        for line in f:
            record = json.loads(line)
            records[record["id"]] = record
    all_ids = common.conversation_ids(home)
    pick = random.Random(1).choice(all_ids)
    ref = short_ref(pick, all_ids)
    where = ids.conversation_path(pick)
    env = common.child_env(home)
    print(f"bench_manage: {n} conversations x {a.turns} turns, {made.get('commits_made', 1)} commits "
          f"(store ready in {store_seconds:.1f} s); load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")

    conv_cmds = {
        "list": ["list", "-n", "50"],
        "search common": ["search", COMMON_WORD],
        "search rare": ["search", RARE_WORD],
        "log": ["log", ref],
    }
    labels = {"list": "conv list -n 50", "search common": f"conv search {COMMON_WORD}",
              "search rare": f"conv search {RARE_WORD}", "log": f"conv log {ref}"}
    budgets = {"list": LIST_BUDGET_MS, "search common": SEARCH_BUDGET_MS, "search rare": SEARCH_BUDGET_MS,
               "log": LOG_BUDGET_MS}
    git_log = ["git", "--git-dir", str(home / "store.git"), "log", "--oneline", "--", where]
    commands = {"python": ([common.PYTHON, "-c", "pass"], common.child_env(common.OUT / "unused"), runs)}
    commands.update({f"conv {key}": (common.conv(*args), env, runs) for key, args in conv_cmds.items()})
    commands["git log"] = (git_log, env, a.git_runs)
    commands["git log, no graph"] = (["git", "-c", "core.commitGraph=false", *git_log[1:]], env, a.git_runs)
    hits = {word: len(json_of(common.conv("search", word, "-n", str(n), "--json"), env))
            for word in (COMMON_WORD, RARE_WORD)}
    print(f"  conversations matching: {COMMON_WORD} {hits[COMMON_WORD]}, {RARE_WORD} {hits[RARE_WORD]}; "
          f"conv log {ref}: {len(json_of(common.conv('log', ref, '--json'), env)['commits'])} commit(s), "
          f"git log: {len(subprocess.run(git_log, capture_output=True, text=True).stdout.splitlines())}")

    llm_cmds = {}
    if not a.no_llm:
        llm, version = llm_venv()
        folder, info = llm_db(home, version)
        lenv = llm_env(home, folder)
        thread = thread_of(folder, records[pick])
        llm_cmds = {
            "start": ([str(llm), "--version"], "llm --version (reference)"),
            "list": ([str(llm), "logs", "list", "-n", "50"], "llm logs list -n 50"),
            "search common": ([str(llm), "logs", "-q", COMMON_WORD], f"llm logs -q {COMMON_WORD}"),
            "search rare": ([str(llm), "logs", "-q", RARE_WORD], f"llm logs -q {RARE_WORD}"),
            "log": ([str(llm), "logs", "list", "--cid", thread, "-n", "0"], "llm logs list --cid THREAD -n 0"),
        }
        print(f"  llm {version}: {info['threads']} threads, {info['turns']} turns, logs.db "
              f"{(folder / 'logs.db').stat().st_size / 2**20:.0f} MB, filled in {info['seconds']:.1f} s")
        commands.update({f"llm {key}": (cmd, lenv, runs) for key, (cmd, _) in llm_cmds.items()})

    print(f"  measuring {len(commands)} commands in turn, {runs} rounds "
          f"(load average {os.getloadavg()[0]:.2f})", flush=True)
    got = round_robin(commands)
    rows = []

    def add(label: str, name: str, budget: float | None = None) -> None:
        wall, cpu = got[name]
        rows.append(common.row(f"{label} @{n}", wall, budget))
        rows.append(common.row(f"  {label.removesuffix(' (reference)')}: CPU time @{n}", cpu))

    add("python -c pass (reference)", "python")
    for key in conv_cmds:
        add(labels[key], f"conv {key}", budgets[key])
    add("git log --oneline -- <its folder> (reference)", "git log")
    add("  the same, commit-graph off (reference)", "git log, no graph")
    if llm_cmds:
        for key, (_, label) in llm_cmds.items():
            add(label, f"llm {key}")
            if key in conv_cmds:
                for row, which in ((rows[-2], 0), (rows[-1], 1)):
                    row["verdict"] = (
                        f"conv/llm {got[f'conv {key}'][which]['median'] / got[f'llm {key}'][which]['median']:.2f}")
        print(f"\n  side by side @{n}: medians in ms, wall time (CPU time); "
              "ratio = conv / llm, below 1: conv is faster")
        print(f"    {'conv':<24} {'wall':>7} {'(cpu)':>7}   {'llm ' + version:<32} {'wall':>7} {'(cpu)':>7}"
              f"   {'ratio':>5} {'(cpu)':>6}")
        for key in conv_cmds:
            (cw, cc), (lw, lc) = got[f"conv {key}"], got[f"llm {key}"]
            print(f"    {labels[key]:<24} {cw['median']:7.1f} {'(%.1f)' % cc['median']:>7}   {llm_cmds[key][1]:<32} "
                  f"{lw['median']:7.1f} {'(%.1f)' % lc['median']:>7}   {cw['median'] / lw['median']:5.2f} "
                  f"{'(%.2f)' % (cc['median'] / lc['median']):>6}")
        print(f"    {'python -c pass':<24} {got['python'][0]['median']:7.1f} "
              f"{'(%.1f)' % got['python'][1]['median']:>7}   "
              f"{'llm --version':<32} {got['llm start'][0]['median']:7.1f} "
              f"{'(%.1f)' % got['llm start'][1]['median']:>7}")
    print(f"  (load average {os.getloadavg()[0]:.2f} at the end)")

    for key, args in conv_cmds.items():
        if a.profile or got[f"conv {key}"][0]["median"] > budgets[key]:
            profile(args, env)
    return rows


if __name__ == "__main__":
    started, load = time.perf_counter(), os.getloadavg()[0]
    results = main()
    common.summary(results, "manage", started, load)
