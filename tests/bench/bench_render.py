"""Answers rendered as Markdown while they stream: what it costs.

On a pseudo-terminal, against the loopback fake answering at once with a
Markdown answer (a heading, emphasis, a code block, a list):
  * time to the answer's first byte and to the end, rendered and --plain;
  * the start-up cost when rendering is not used (piped): the renderer and
    rich must not be imported at all (checked with -X importtime).

    python tests/bench/bench_render.py [--runs 15]
"""

import argparse
import os
import pty
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import common  # noqa: E402
from fakeserver import FakeServer  # noqa: E402

ANSWER = "# Rebase\n\nIt **replays** commits: `git rebase -i`.\n\n```python\nprint('hi')\n```\n- one\n- two\n"


def first_byte_and_end(cmd: list[str], env: dict) -> tuple[float, float]:
    """Seconds to the first byte of the answer on the terminal, and to the process's end."""
    master, slave = pty.openpty()
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.DEVNULL)
    os.close(slave)
    first = None
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        first = first or time.perf_counter()
    proc.wait()
    os.close(master)
    return (first or time.perf_counter()) - started, time.perf_counter() - started


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=15)
    a = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as home, FakeServer(reply=ANSWER) as fake:
        env = {**common.child_env(Path(home), fake.url), "TERM": "xterm-256color"}
        subprocess.run([*common.conv("ask", "warm up")], env=env, capture_output=True, check=True)
        for label, extra in (("rendered", []), ("--plain", ["--plain"])):
            samples = [first_byte_and_end(common.conv("ask", "-c", *extra, "explain"), env) for _ in range(a.runs)]
            rows.append(common.row(f"terminal, {label}: first byte", common.stats([s[0] for s in samples])))
            rows.append(common.row(f"terminal, {label}: whole answer", common.stats([s[1] for s in samples])))
        imported = subprocess.run([*common.conv("ask", "-c", "piped")], env={**env, "PYTHONPROFILEIMPORTTIME": "1"},
                                  capture_output=True, text=True).stderr
        loaded = sorted({line.rsplit("|", 1)[1].strip() for line in imported.splitlines() if "|" in line}
                        & {"conv.terminal.streamed_markdown", "rich"})
        print(f"piped ask imports the renderer or rich: {loaded or 'no'}")
    return rows


if __name__ == "__main__":
    common.summary(main())
