"""``conv serve`` at 10,000 and 100,000 conversations (genstore.py's
stores, whose turns are drawn from 80 common words: every query matches tens
of thousands of turns, the hardest case).

  * from the command's start to its first page answered (budget 500 ms);
  * the list's first page, and a page further on (each goes on after the one
    before: no count past it);
  * a search as the search box asks it, over the queries below (budget: the
    95th percentile at most 100 ms);
  * one conversation's page.

    python tests/bench/bench_serve.py [--runs 20] [--sizes 10000,100000]
"""

import argparse
import http.client
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

READY_BUDGET, SEARCH_BUDGET = 500, 100  # ms
QUERIES = ("rebase conflict", '"merge conflict"', "retry timeout", "python function", "git branch merge",
           "what did we decide about the retry timeout", "fixture", "module import test")


class Served:
    def __init__(self, env: dict):
        self.started = time.perf_counter()
        self.process = subprocess.Popen(common.conv("serve", "--port", "0"), stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env, text=True)
        url = self.process.stdout.readline().strip()
        if not url:
            sys.exit("bench_serve: conv serve printed no address")
        self.base, self.token = url.split("/?token=")
        self.port = int(self.base.split(":")[2].split("/")[0])
        self.prefix = self.base.split(str(self.port), 1)[1]  # every page is under the server's own path

    def get(self, path: str) -> tuple[float, str]:
        started = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        connection.request("GET", self.prefix + path, headers={"Host": f"127.0.0.1:{self.port}",
                                                  "Cookie": f"conv_token={self.token}"})
        answer = connection.getresponse()
        body = answer.read().decode()
        if answer.status != 200:
            sys.exit(f"bench_serve: {path}: {answer.status} {body[:300]}")
        return time.perf_counter() - started, body

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def ready(env: dict) -> float:
    served = Served(env)
    served.get("/")
    took = time.perf_counter() - served.started
    served.stop()
    return took


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)] * 1000


def at(size: int, runs: int) -> list[dict]:
    home = common.store_home(size)
    env = common.child_env(home)
    common.run(common.conv("list", "-n", "1"), env)  # the index current
    rows = [common.row(f"conv serve, ready (first page) @{size}", common.stats([ready(env) for _ in range(runs)]),
                       READY_BUDGET)]
    served = Served(env)
    try:
        first = [served.get("/")[0] for _ in range(runs)]
        rows.append(common.row(f"the list's first page @{size}", common.stats(first)))
        body = served.get("/")[1]
        on = body.split('class="more" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&") if 'class="more"' in body \
            else "./"
        on = "/" + on.removeprefix("./")  # the page's links are relative to the server's own path
        rows.append(common.row(f"the list's next page @{size}", common.stats([served.get(on)[0] for _ in range(runs)])))
        searched = [served.get(f"/api/search?q={quote(q)}")[0] for _ in range(max(1, runs // 4)) for q in QUERIES]
        rows.append(common.row(f"a search as typed @{size} (median)", common.stats(searched)))
        print(f"  a search as typed @{size}: p95 {p95(searched):.1f} ms over {len(searched)} "
              f"(budget {SEARCH_BUDGET} ms: {'ok' if p95(searched) <= SEARCH_BUDGET else 'OVER'})", flush=True)
        hit = json.loads(served.get(f"/api/search?q={quote(QUERIES[0])}")[1])["hits"][0]["id"]
        rows.append(common.row(f"a conversation's page @{size}",
                               common.stats([served.get(f"/c/{hit}")[0] for _ in range(runs)])))
    finally:
        served.stop()
    return rows


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--sizes", default="10000,100000")
    a = p.parse_args(argv)
    print(f"bench_serve: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    return [row for size in (int(s) for s in a.sizes.split(",")) for row in at(size, a.runs)]


if __name__ == "__main__":
    common.summary(main(), "serve")
