"""What proxy support costs a follow-up: a cold ``conv ask -c "q"`` in a store
of one conversation (made by a first ask; the cost measured here does not
depend on the store's size) against tests/fakeserver.py (its own process,
plain http), with

  - no proxy variable (providers/proxy.py is never imported: the hot path
    only looks five variables up in os.environ);
  - ``http_proxy`` set and the server's host in ``NO_PROXY`` (proxy.py
    imported, the NO_PROXY rules run, the request goes direct);
  - ``http_proxy`` = a tinyproxy started here on a free port (the request
    goes through it, in absolute form: the proxy's hop is in the figure).

Runs alternate between the three (after one unmeasured run of each), so load
drifts hit them alike. Also printed: ``python -X importtime``'s figure for
conv.providers.proxy inside that process (median over the runs), and whether
it is imported at all without the variables.

    python tests/bench/bench_network.py [--runs 20]
"""

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402


@contextmanager
def tinyproxy():
    """tinyproxy in the foreground on a free 127.0.0.1 port; yields its URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        conf = Path(tmp) / "tinyproxy.conf"
        conf.write_text(f"Port {port}\nListen 127.0.0.1\nAllow 127.0.0.1\nTimeout 30\nMaxClients 20\nLogLevel Error\n")
        proc = subprocess.Popen(["tinyproxy", "-d", "-c", str(conf)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(200):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.05)
            yield f"http://127.0.0.1:{port}"
        finally:
            proc.terminate()
            proc.wait(10)


def proxy_import_us(env: dict, args: list[str]) -> int | None:
    """conv.providers.proxy's cumulative import time in one run, None if not imported."""
    cmd = [common.PYTHON, "-X", "importtime", str(common.CONV), *args]
    err = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True).stderr
    found = re.search(r"import time:\s+\d+ \|\s+(\d+) \|\s+conv\.providers\.proxy$", err, re.M)
    return int(found[1]) if found else None


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=20)
    a = p.parse_args(argv)
    print(f"bench_network: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    args = ["ask", "-c", "q"]
    rows = []
    with common.fake_server() as url, tinyproxy() as proxy, tempfile.TemporaryDirectory() as home:
        base = common.child_env(Path(home), url)
        common.run(common.conv("ask", "the first question"), base)
        variants = {
            "no proxy variable": base,
            "http_proxy set, host in NO_PROXY": {**base, "http_proxy": proxy, "NO_PROXY": "127.0.0.1"},
            "through tinyproxy (absolute form)": {**base, "http_proxy": proxy},
        }
        walls: dict[str, list[float]] = {name: [] for name in variants}
        for env in variants.values():
            common.run(common.conv(*args), env)  # warm-up
        for _ in range(a.runs):
            for name, env in variants.items():
                walls[name].append(common.run(common.conv(*args), env))
        for name, samples in walls.items():
            rows.append(common.row(f"ask -c: {name}", common.stats(samples)))
        unused = statistics.median(walls["no proxy variable"])
        for name in list(variants)[1:]:
            extra = [w - unused for w in walls[name]]
            rows.append(common.row(f"  more than without: {name}", common.stats(extra)))
        imported = [proxy_import_us(variants["http_proxy set, host in NO_PROXY"], args) for _ in range(5)]
        unset = proxy_import_us(base, args)
    print("  import of conv.providers.proxy when a variable is set: "
          f"median {statistics.median(imported) / 1000:.2f} ms "
          f"(-X importtime, 5 runs); without one: {'not imported' if unset is None else f'{unset / 1000:.2f} ms'}")
    return rows


if __name__ == "__main__":
    main()
