"""``conv mcp`` and ``conv search`` at 10,000 and 100,000 conversations (the
generated stores of genstore.py, whose turns are drawn from 80 common words:
every query below matches tens of thousands of turns, the hardest case).

  * the server from its start to its answer to ``initialize`` (budget 300 ms);
  * a ``search`` tool call to a running server: two words, a "phrase", with a
    filter, and a question as an agent asks it (budget 100 ms);
  * ``show`` of one conversation and ``list`` (as the agent calls them);
  * ``conv search`` as a cold process, the person's way in (budget 150 ms).

    python tests/bench/bench_mcp.py [--runs 20] [--sizes 10000,100000]
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

START_BUDGET, CALL_BUDGET = 300, 100  # ms
PROCESS_BUDGET = 150  # ms, conv search as a process
QUERIES = {"two words": "rebase conflict", "a phrase": '"merge conflict"', "two words, source conv": "retry timeout",
           "a question": "what did we decide about the retry timeout when a rebase hit a merge conflict?"}


class Server:
    def __init__(self, env: dict):
        self.started = time.perf_counter()
        self.process = subprocess.Popen(common.conv("mcp"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, env=env)

    def call(self, ident: int, method: str, **params) -> dict:
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method,
                                             "params": params}).encode() + b"\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if "error" in answer or answer.get("result", {}).get("isError"):
            sys.exit(f"bench_mcp: {method} failed: {answer}")
        return answer

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(10)


def initialize(env: dict) -> float:
    server = Server(env)
    server.call(1, "initialize", protocolVersion="2025-11-25", capabilities={}, clientInfo={"name": "bench"})
    took = time.perf_counter() - server.started
    server.close()
    return took


def at(size: int, runs: int) -> list[dict]:
    home = common.store_home(size)
    env = common.child_env(home)
    common.run(common.conv("list", "-n", "1"), env)  # the index current
    rows = [common.row(f"mcp: start to the initialize answer @{size}",
                       common.stats([initialize(env) for _ in range(runs)]), START_BUDGET)]
    server = Server(env)
    server.call(1, "initialize", protocolVersion="2025-11-25", capabilities={}, clientInfo={"name": "bench"})
    ident = 2
    for name, query in QUERIES.items():
        args = {"query": query, **({"source": "conv"} if "source" in name else {})}
        server.call(ident, "tools/call", name="search", arguments=args)  # the first opens the index
        samples = []
        for _ in range(runs):
            ident += 1
            start = time.perf_counter()
            server.call(ident, "tools/call", name="search", arguments=args)
            samples.append(time.perf_counter() - start)
        rows.append(common.row(f"mcp: search, {name} @{size}", common.stats(samples), CALL_BUDGET))
    conv_id = common.conversation_ids(home)[size // 2]
    for name, args in (("show", {"id": conv_id}), ("list", {"limit": 20})):
        samples = []
        for _ in range(runs):
            ident += 1
            start = time.perf_counter()
            server.call(ident, "tools/call", name=name, arguments=args)
            samples.append(time.perf_counter() - start)
        rows.append(common.row(f"mcp: {name} @{size}", common.stats(samples), CALL_BUDGET))
    server.close()
    search = common.conv("search", "rebase", "conflict", "-n", "10")
    rows.append(common.row(f"conv search rebase conflict (a process) @{size}",
                           common.stats([common.run(search, env) for _ in range(runs)]), PROCESS_BUDGET))
    return rows


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--sizes", default="10000,100000")
    a = p.parse_args(argv)
    print(f"bench_mcp: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    rows = []
    for size in (int(s) for s in a.sizes.split(",")):
        rows += at(size, a.runs)
    return rows


if __name__ == "__main__":
    common.summary(main(), "mcp")
