"""Helpers shared by the benchmarks: statistics, the child environment, conv
as a cold process, the fake model server as a separate process.

Every conv process gets a clean environment: its own CONV_HOME, no OPENAI_* /
CONV_* from the developer's shell, and no PYTHONDONTWRITEBYTECODE (with it set,
an editable install recompiles its own modules at every start).
"""

import math
import os
import pty
import re
import statistics
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent.parent
OUT = Path(os.environ.get("CONV_BENCH_OUT") or BENCH / "out")  # where stores and tools are made (the suite's
# smoke runs, tests/test_benchmarks.py, give each its own)
FAKESERVER = ROOT / "tests" / "fakeserver.py"
PYTHON = sys.executable
CONV = Path(PYTHON).parent / "conv"  # the console script a user runs


def stats(samples: list[float]) -> dict:
    """median, p90 (nearest rank) and n, in milliseconds (samples in seconds)."""
    s = sorted(samples)
    p90 = s[max(0, math.ceil(0.9 * len(s)) - 1)]
    return {"median": statistics.median(s) * 1000, "p90": p90 * 1000, "n": len(s)}


def fmt(st: dict) -> str:
    return f"median {st['median']:8.1f} ms   p90 {st['p90']:8.1f} ms   n {st['n']}"


def row(name: str, st: dict, budget: float | None = None) -> dict:
    """One line of a bench's results (run_all.py collects them into a table)."""
    verdict = "" if budget is None else ("ok" if st["median"] <= budget else "OVER")
    line = f"  {name:<56} {fmt(st)}"
    if budget is not None:
        line += f"   budget <= {budget:g} ms: {verdict}"
    print(line, flush=True)
    return {"name": name, **st, "budget": budget, "verdict": verdict}


def child_env(home: Path, base_url: str | None = None) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "CONV_")) and k not in ("PYTHONDONTWRITEBYTECODE", "NO_COLOR")}
    env["CONV_HOME"] = str(home)
    if base_url:
        env["OPENAI_BASE_URL"] = base_url
    return env


def run(cmd: list[str], env: dict, tty: bool = False, cwd: Path | None = None) -> float:
    """Wall time of one process, stdin empty, stdout a pipe (or a pseudo-terminal), run in ``cwd``."""
    if tty:
        return _run_tty(cmd, env)
    t = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, cwd=cwd)
    elapsed = time.perf_counter() - t
    if done.returncode and not found_nothing(cmd, done.returncode):
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return elapsed


def found_nothing(cmd: list[str], code: int) -> bool:
    """conv search's exit when it found nothing (1, as grep's): a search timed, not a failure."""
    return code == 1 and "search" in cmd[1:3]


def _run_tty(cmd: list[str], env: dict) -> float:
    master, slave = pty.openpty()
    out = bytearray()

    def drain():  # a pty's buffer is small: read it while the child writes
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO once the child has gone
                return
            if not data:
                return
            out.extend(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    code = proc.wait()
    elapsed = time.perf_counter() - t
    reader.join(5)
    os.close(master)
    if code:
        sys.exit(f"{' '.join(cmd)} failed ({code}): {out.decode(errors='replace')[-2000:]}")
    return elapsed


def git_reads_everything(store: Path) -> float:
    """Wall seconds of git reading every object of ``store`` once
    (``git cat-file --batch-all-objects --batch`` into /dev/null): what the
    scale issue holds a full index build to (at most 10 times it)."""
    t = time.perf_counter()
    subprocess.run(["git", "--git-dir", str(store), "cat-file", "--batch-all-objects", "--batch"],
                   stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def conv(*args: str) -> list[str]:
    return [str(CONV), *args]


@contextmanager
def fake_server(mode: str = "ok"):
    """tests/fakeserver.py as its own process; yields its base URL."""
    proc = subprocess.Popen([PYTHON, str(FAKESERVER), "--port", "0", "--mode", mode],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if not line.startswith("PORT "):
            sys.exit(f"fake server did not start: {line!r}")
        yield f"http://127.0.0.1:{int(line.split()[1])}/v1"
    finally:
        proc.terminate()
        proc.wait(5)


def server_round_trip(base_url: str, n: int = 20) -> dict:
    """The fake's own time for one streamed answer, seen by a warm client:
    what a conv ask spends waiting on the server (subtract it from wall time)."""
    import http.client
    import json
    from urllib.parse import urlsplit

    url = urlsplit(base_url)
    body = json.dumps({"model": "gpt-4o-mini", "stream": True, "stream_options": {"include_usage": True},
                       "messages": [{"role": "user", "content": "q"}]}).encode()
    samples = []
    for _ in range(n + 1):
        t = time.perf_counter()
        c = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
        c.request("POST", url.path + "/chat/completions", body, {"Content-Type": "application/json"})
        c.getresponse().read()
        c.close()
        samples.append(time.perf_counter() - t)
    return stats(samples[1:])


def python_startup(n: int = 20) -> dict:
    """A bare interpreter start (same venv, same environment), for reference."""
    env = child_env(OUT / "unused")
    run([PYTHON, "-c", "pass"], env)
    return stats([run([PYTHON, "-c", "pass"], env) for _ in range(n)])


def store_dir(conversations: int, turns: int = 5, commits: str = "single") -> Path:
    """Where genstore.py puts a store of that size and history by default."""
    return OUT / (f"store-{conversations}x{turns}" + ("" if commits == "single" else f"-{commits}"))


def store_home(conversations: int, turns: int = 5, commits: str = "single") -> Path:
    """A generated store of that size (made once, then reused; see genstore.py).
    ``commits``: "single" (one commit holds everything), "per-conversation" or
    "per-turn" (a history; see genstore.py --commits)."""
    import genstore

    return genstore.ensure(store_dir(conversations, turns, commits), conversations, turns, commits=commits)


def conversation_ids(home: Path) -> list[str]:
    return (home / "ids.txt").read_text().split()


def summary(results: list[dict], bench: str | None = None, started: float | None = None,
            load: float | None = None) -> None:
    """The table run_all.py prints, for one bench's rows (``bench`` names them)
    or for rows that carry their own ``bench``."""
    took = f", {time.perf_counter() - started:.0f} s" if started is not None else ""
    at_start = f"{load:.2f} at start, " if load is not None else ""
    print(f"\n== summary (load average {at_start}{os.getloadavg()[0]:.2f} at end, {os.cpu_count()} cores{took})")
    print(f"{'bench':<7} {'measure':<56} {'median ms':>10} {'p90 ms':>9} {'n':>4} {'budget':>8}  verdict")
    for r in results:
        budget = f"<= {r['budget']:g}" if r["budget"] is not None else ""
        print(f"{r.get('bench', bench) or '':<7} {r['name'].strip():<56} {r['median']:10.1f} {r['p90']:9.1f} "
              f"{r['n']:4} {budget:>8}  {r['verdict']}")


def show_importtime(stderr: str, label: str, top: int = 15, indent: str = "  ") -> None:
    """The costliest imports of one ``python -X importtime`` run (its stderr)."""
    found = []
    for line in stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            found.append((int(m[2]), int(m[1]), len(m[3]) // 2, m[4]))
    total = sum(self_us for _, self_us, _, _ in found)
    print(f"\n{indent}`{label}`: {len(found)} modules imported, {total / 1000:.1f} ms of imports in all")
    print(f"{indent}  {'cumulative':>10} {'self':>8}  depth  module")
    for cumulative, self_us, depth, name in sorted(found, reverse=True)[:top]:
        print(f"{indent}  {cumulative / 1000:8.1f} ms {self_us / 1000:5.1f} ms  {depth:5}  {name}")


def stop_hosts(runtime: Path) -> None:
    """Stop every local-model host under the runtime folder ``runtime`` (their
    pids are in their ready files) and wait until each has gone."""
    from conv.providers.local.hosting import Host

    for ready in runtime.glob("conv/*.ready"):
        try:
            os.kill(int(ready.read_text()), 15)
        except (ValueError, ProcessLookupError):
            pass
        Host(str(ready.with_suffix(""))).gone(10)


def venv(where: Path, packages: list[str], probe: str, env: dict | None = None) -> bool:
    """A venv at ``where`` holding ``packages`` from the package index (made
    once: ``probe``, a Python statement, must succeed in it, or it is made
    again), by uv when the test extra put it beside this Python (seconds where
    pip takes tens), else by its own pip. False when the install failed."""
    import subprocess

    python = where / "bin" / "python"
    if python.exists() and subprocess.run([python, "-c", probe], capture_output=True, env=env).returncode == 0:
        return True
    subprocess.run([PYTHON, "-m", "venv", "--clear", str(where)], check=True)
    uv = Path(PYTHON).parent / "uv"
    install = ([uv, "pip", "install", "-q", "--python", python] if uv.exists()
               else [where / "bin" / "pip", "install", "-q", "--disable-pip-version-check"])
    done = subprocess.run([*install, *packages], capture_output=True, text=True, env=env)
    if done.returncode:
        print(done.stdout[-2000:], done.stderr[-2000:], file=sys.stderr)
    return done.returncode == 0 and subprocess.run([python, "-c", probe], capture_output=True, env=env).returncode == 0


@contextmanager
def every_core_busy():
    """Two busy processes a core, as a build or a test run keeps them, while the block runs."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * (os.cpu_count() or 1))]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
