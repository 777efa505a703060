"""``conv blame`` and ``conv origin`` in a store of 10,000 conversations
(genstore.py's) with a project a hundred Claude Code sessions wrote: each
session's Edit adds a part of one long file (2,000 lines), each part
committed after its session, and every session also rewrites a shared
helper file (the same lines written many times). Budgets: the whole file
blamed in at most 1 s, a commit's origin in at most 300 ms (a process each,
as a person runs them). Also printed: the share of the file's lines
attributed to the session that wrote them, and lines attributed wrongly.

    python tests/bench/bench_blame.py [--runs 5] [--sizes 10000] [--lines 2000] [--sessions 100]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
import common  # noqa: E402
from claude_sessions import write_session  # noqa: E402

BLAME_BUDGET, ORIGIN_BUDGET = 1000, 300  # ms
HELPER = "def clamp(value, low, high):\n    return max(low, min(high, value))\n"


def line(n: int) -> str:
    return f"    total_{n} = combine(total_{n - 1}, weight={n % 17}, name='part {n}')\n"


def project_of(home: Path, lines: int, sessions: int) -> tuple[Path, list[str], dict[int, str]]:
    """The project, its commits (one a session's part, oldest first), and which session wrote each line."""
    project = home.parent / f"{home.name}-project"
    shutil.rmtree(project, ignore_errors=True)
    project.mkdir()
    agents = project.parent / f"{home.name}-agents"
    shutil.rmtree(agents, ignore_errors=True)
    env = {**common.child_env(home), "GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com",
           "GIT_COMMITTER_NAME": "Dev", "GIT_COMMITTER_EMAIL": "dev@example.com"}

    def git(*args: str, when: str | None = None) -> str:
        dated = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when} if when else {}
        return subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True, text=True,
                              env={**env, **dated}).stdout

    git("init", "-q", "-b", "main")
    (project / "big.py").write_text("def build(total_0):\n")
    git("add", "-A")
    git("commit", "-q", "-m", "start", when="2030-01-01T00:00:00Z")
    text, wrote, commits, per = "def build(total_0):\n", {}, [], max(1, lines // sessions)
    for k in range(sessions):
        part = "".join(line(n) for n in range(k * per + 1, (k + 1) * per + 1))
        last = text.splitlines(keepends=True)[-1]
        sid = f"{k:08x}-0000-4000-8000-{k:012x}"
        day = f"2030-02-{1 + k // 24:02d}T{k % 24:02d}"
        write_session(agents, project, sid, f"{day}:00", [{"file": "big.py", "old": last, "new": last + part},
                                                         {"file": "helper.py", "content": HELPER}])
        text += part
        (project / "big.py").write_text(text)
        (project / "helper.py").write_text(HELPER)
        git("add", "-A")
        git("commit", "-q", "-m", f"part {k}", when=f"{day}:30:00Z")
        commits.append(git("rev-parse", "HEAD").strip())
        for n in range(k * per + 1, (k + 1) * per + 1):
            wrote[n + 1] = sid  # the file's line n + 1 holds total_n
    done = subprocess.run(common.conv("import", "--from", "claude-code"), env={**env, "HOME": str(agents)},
                          capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"bench_blame: the import failed: {done.stderr[-2000:]}")
    return project, commits, wrote


def at(size: int, lines: int, sessions: int, runs: int) -> list[dict]:
    home = common.store_home(size)
    env = common.child_env(home)
    project, commits, wrote = project_of(home, lines, sessions)
    listed = json.loads(subprocess.run(common.conv("list", "--json", "-n", "1000", "--source", "claude-code"),
                                       env=env, capture_output=True, text=True, check=True).stdout)
    session_of = {}
    for item in listed:
        shown = json.loads(subprocess.run(common.conv("show", item["id"], "--json"), env=env, capture_output=True,
                                          text=True, check=True).stdout)
        session_of[item["id"]] = shown["imported_from"]["id"]
    blame = common.conv("blame", str(project / "big.py"), "--json")
    found = json.loads(subprocess.run(blame, env=env, cwd=project, capture_output=True, text=True,
                                      check=True).stdout)["lines"]
    right = sum(1 for entry in found if entry["conversation"] and
                session_of.get(entry["conversation"]["id"]) == wrote.get(entry["line"]))
    wrong = sum(1 for entry in found if entry["conversation"] and
                session_of.get(entry["conversation"]["id"]) != wrote.get(entry["line"]))
    print(f"  attributed: {right}/{len(wrote)} agent-written lines ({100 * right / max(len(wrote), 1):.1f}%), "
          f"{wrong} wrongly, of {len(found)} lines", flush=True)
    rows = [common.row(f"conv blame, a {len(found)}-line file @{size}",
                       common.stats([common.run(blame, env, cwd=project) for _ in range(runs)]), BLAME_BUDGET)]
    origin = common.conv("origin", commits[len(commits) // 2], "--json")
    rows.append(common.row(f"conv origin, a commit of {lines // sessions} lines @{size}",
                           common.stats([common.run(origin, env, cwd=project) for _ in range(runs)]), ORIGIN_BUDGET))
    every = common.conv("origin", f"{commits[0]}~1..{commits[-1]}", "--json")
    rows.append(common.row(f"conv origin, {len(commits)} commits @{size}",
                           common.stats([common.run(every, env, cwd=project) for _ in range(max(1, runs // 2))])))
    if wrong or right < len(wrote):
        sys.exit(f"bench_blame: {right}/{len(wrote)} lines attributed, {wrong} wrongly")
    return rows


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--sizes", default="10000")
    p.add_argument("--lines", type=int, default=2000)
    p.add_argument("--sessions", type=int, default=100)
    a = p.parse_args(argv)
    print(f"bench_blame: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    return [row for size in (int(s) for s in a.sizes.split(",")) for row in at(size, a.lines, a.sessions, a.runs)]


if __name__ == "__main__":
    common.summary(main(), "blame")
