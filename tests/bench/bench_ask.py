"""Cold-process overhead of a follow-up: ``conv ask -c "q"`` and
``conv ask --cid ID "q"``, at 10 and at 10,000 conversations.

``-c`` runs without CONV_SESSION, so it follows the most recently updated
conversation (found through the index); ``--cid`` names the first generated
one by its full id. Each run is a whole new process (the ``conv`` console
script), stdin empty, stdout a pipe, against tests/fakeserver.py running as
its own process and answering at once.
Reported per variant: the raw wall time, and the overhead = wall time minus
the server's time for one streamed answer (measured beforehand as the median
round trip of a warm in-process client, so an upper bound of what conv waits
on the server). A bare ``python -c pass`` is shown for reference.
The child environment has no PYTHONDONTWRITEBYTECODE, and each variant runs
once unmeasured first (bytecode written, files in the page cache).

Budget: overhead <= 120 ms median.

    python tests/bench/bench_ask.py [--runs 20] [--sizes 10,10000]
    python tests/bench/bench_ask.py --importtime   # top 15 imports of one conv ask
"""

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

BUDGET_MS = 120


def measure(size: int, runs: int, turns: int) -> list[dict]:
    home = common.store_home(size, turns)
    cid = common.conversation_ids(home)[0]
    rows = []
    with common.fake_server() as url:
        env = common.child_env(home, url)
        server = common.server_round_trip(url)
        rows.append(common.row(f"fake server round trip (warm client) @{size}", server))
        for label, args in (("ask -c", ["ask", "-c", "q"]), ("ask --cid ID", ["ask", "--cid", cid, "q"])):
            common.run(common.conv(*args), env)  # warm-up
            walls = [common.run(common.conv(*args), env) for _ in range(runs)]
            rows.append(common.row(f"{label}: wall time @{size}", common.stats(walls)))
            overhead = [w - server["median"] / 1000 for w in walls]
            rows.append(common.row(f"{label}: overhead (wall - server) @{size}", common.stats(overhead), BUDGET_MS))
    return rows


def importtime(size: int, turns: int, top: int = 15) -> None:
    """One ``conv ask --cid`` under ``python -X importtime``: the costliest imports."""
    home = common.store_home(size, turns)
    cid = common.conversation_ids(home)[0]
    with common.fake_server() as url:
        env = common.child_env(home, url)
        cmd = [common.PYTHON, "-X", "importtime", str(common.CONV), "ask", "--cid", cid, "q"]
        subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True)  # warm-up
        err = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True).stderr
    common.show_importtime(err, f"conv ask --cid @{size}", top, indent="")


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--sizes", default="10,10000", help="store sizes, in conversations")
    p.add_argument("--turns", type=int, default=5, help="turns per generated conversation")
    p.add_argument("--importtime", action="store_true", help="only print the import-time breakdown")
    a = p.parse_args(argv)
    sizes = [int(s) for s in a.sizes.split(",")]
    if a.importtime:
        importtime(sizes[-1], a.turns)
        return []
    print(f"bench_ask: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    rows = [common.row("python -c pass (reference)", common.python_startup(a.runs))]
    for size in sizes:
        rows += measure(size, a.runs, a.turns)
    return rows


if __name__ == "__main__":
    main()
