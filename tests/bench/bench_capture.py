"""A coding agent's hook into conv (``conv connect claude-code``), at 10 and
10,000 conversations: the command line Claude Code runs, read from the
settings file conv wrote, handed the hook's JSON on stdin as Claude Code
hands it. Measured:

  * the hook's return time (what the agent waits for; budget 100 ms median);
  * the time from the hook's start until the exchange is in the store (the
    background worker's commit, seen in its log; budget 2 s), for a new
    session of 50 messages and for one grown by 4 messages (a ``--continue``);
  * thirty hooks at once (thirty sessions or sub-agents stopping together):
    the slowest one's return, beside thirty bare ``conv --version`` started
    at once (budget: twice theirs), and until all thirty are in the store;
  * a new session's way into the store with every core busy (a load of two
    busy processes a core), against the same budget of 2 s.

The sessions have the shape the real Claude Code writes (bench_import_claude_code.py).

    python tests/bench/bench_capture.py [--runs 20] [--sizes 10,10000]
"""

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from bench_import_claude_code import sessions  # noqa: E402

HOOK_BUDGET, LANDED_BUDGET = 100, 2000  # ms


def landed(log: Path, session: Path, count_before: int, within: float = 30) -> None:
    """Until the worker's log has one more line for ``session``."""
    deadline = time.monotonic() + within
    needle = f"{session}: "
    while True:
        try:
            if log.read_text().count(needle) > count_before:
                return
        except FileNotFoundError:
            pass
        if time.monotonic() > deadline:
            sys.exit(f"bench_capture: {session} not captured within {within} s (see {log})")
        time.sleep(0.002)


def handed(session: Path) -> bytes:
    """What Claude Code's Stop hook hands conv for ``session``."""
    return json.dumps({"session_id": session.stem, "transcript_path": str(session), "cwd": "/home/dev",
                       "hook_event_name": "Stop", "stop_hook_active": False}).encode()


def capture_once(hook: list[str], env: dict, session: Path, log: Path) -> tuple[float, float]:
    """(the hook's return time, the time until the exchange is in the store), in seconds."""
    before = log.read_text().count(f"{session}: ") if log.exists() else 0
    start = time.perf_counter()
    done = subprocess.run(hook, input=handed(session), env=env, capture_output=True)
    returned = time.perf_counter() - start
    if done.returncode or done.stdout or done.stderr:
        sys.exit(f"bench_capture: the hook said something or failed: {done}")
    landed(log, session, before)
    return returned, time.perf_counter() - start


def grow(session: Path, by: int) -> None:
    """``by`` more messages at the end, as a --continue appends them."""
    lines = session.read_text().splitlines()
    last = json.loads(lines[-1])
    for n in range(by):
        record = dict(last, uuid=f"grown-{n}-{last['uuid']}", parentUuid=last["uuid"], type="user" if n % 2 == 0
                      else "assistant")
        record["message"] = ({"role": "user", "content": f"and then {n}?"} if n % 2 == 0 else
                             {"role": "assistant", "model": "claude-opus-5-5",
                              "content": [{"type": "text", "text": f"then {n}."}]})
        lines.append(json.dumps(record))
        last = record
    session.write_text("\n".join(lines) + "\n")


@contextmanager
def connected(size: int, name: str, count: int, messages: int):
    """Claude Code connected to the store of ``size`` conversations, ``count`` sessions of ``messages`` written:
    (its environment, the hook's command line as its settings hold it, the capture's log, the sessions)."""
    home = common.store_home(size)
    claude = home.parent / f"capture-{name}-{size}"
    shutil.rmtree(claude, ignore_errors=True)
    sessions(claude / "projects", count, messages)
    env = {**common.child_env(home), "CLAUDE_CONFIG_DIR": str(claude)}
    subprocess.run(common.conv("connect", "claude-code"), env=env, check=True, capture_output=True)
    hook = shlex.split(json.loads((claude / "settings.json").read_text())["hooks"]["Stop"][-1]["hooks"][0]["command"])
    try:
        yield env, hook, home / "state" / "capture" / "log", sorted((claude / "projects").glob("*/*.jsonl"))
    finally:
        subprocess.run(common.conv("connect", "claude-code", "--remove"), env=env, check=True, capture_output=True)


def at(size: int, runs: int) -> list[dict]:
    with connected(size, "claude", runs, 50) as (env, hook, log, files):
        new = [capture_once(hook, env, f, log) for f in files]
        for f in files:
            grow(f, 4)
        grown = [capture_once(hook, env, f, log) for f in files]
    return [
        common.row(f"hook returns (a new session) @{size}", common.stats([r for r, _ in new]), HOOK_BUDGET),
        common.row(f"hook returns (a session grown by 4) @{size}", common.stats([r for r, _ in grown]), HOOK_BUDGET),
        common.row(f"  in the store: a new session of 50 @{size}", common.stats([s for _, s in new]), LANDED_BUDGET),
        common.row(f"  in the store: a session grown by 4 @{size}", common.stats([s for _, s in grown]),
                   LANDED_BUDGET),
    ]


AT_ONCE = 30


def at_once(size: int) -> list[dict]:
    """Thirty hooks started together, each handed its own new session; and thirty bare starts, for comparison."""
    with connected(size, "once", AT_ONCE, 20) as (env, hook, log, files):
        before = {f: (log.read_text().count(f"{f}: ") if log.exists() else 0) for f in files}

        def together(commands: list[tuple[list[str], bytes]]) -> list[float]:
            start = time.perf_counter()
            running = [subprocess.Popen(c, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)
                       for c, _ in commands]
            for proc, (_, given) in zip(running, commands):
                proc.stdin.write(given)
                proc.stdin.close()
            took = []
            for proc in running:
                proc.wait()
                took.append(time.perf_counter() - start)
            return took

        bare = together([(common.conv("--version"), b"")] * AT_ONCE)
        start = time.perf_counter()
        hooks = together([(hook, handed(f)) for f in files])
        for f in files:
            landed(log, f, before[f], within=120)
        stored = time.perf_counter() - start
    slowest_bare = max(bare)
    return [
        common.row(f"{AT_ONCE} conv --version at once: the slowest @{size}", common.stats([slowest_bare])),
        common.row(f"{AT_ONCE} hooks at once: the slowest returns @{size}", common.stats([max(hooks)]),
                   2 * slowest_bare * 1000),
        common.row(f"  all {AT_ONCE} sessions in the store @{size}", common.stats([stored])),
    ]


def under_load(size: int, runs: int) -> list[dict]:
    """A new session's way into the store while every core is at work."""
    with common.every_core_busy(), connected(size, "load", runs, 50) as (env, hook, log, files):
        done = [capture_once(hook, env, f, log) for f in files]
    return [common.row(f"hook returns, every core busy (2 spinning a core) @{size}",
                       common.stats([r for r, _ in done]), HOOK_BUDGET),
            common.row(f"  in the store, every core busy @{size}", common.stats([s for _, s in done]),
                       LANDED_BUDGET)]


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--sizes", default="10,10000")
    a = p.parse_args(argv)
    print(f"bench_capture: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    p_sizes = [int(s) for s in a.sizes.split(",")]
    rows = []
    for size in p_sizes:
        rows += at(size, a.runs)
    rows += at_once(p_sizes[-1])
    rows += under_load(p_sizes[-1], max(3, a.runs // 4))
    return rows


if __name__ == "__main__":
    common.summary(main(), "capture")
