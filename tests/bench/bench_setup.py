"""The first minute: the README's set-up command on a machine that never had
conv (a copy of the checkout, a new HOME, an empty pip cache), timed step by
step, and the whole against its budget (60 s on 2 cores, no source build).
Then, on what it installed: the local model's first byte from a new conv
process, with the model already loaded (the usual case: it stays loaded for
local.keep_alive) and with nothing loaded (the first question after that),
and its generation speed. Needs the package index.

    python tests/bench/bench_setup.py [--runs 1] [--asks 9]
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
import common  # noqa: E402
from readme_setup import command, fresh_machine  # noqa: E402

BUDGET = 60.0  # seconds, the whole command
FIRST_BYTE_BUDGET = 300.0  # ms
QUESTIONS = ["Explain what git rebase does.", "What does git stash do?", "How do I undo a commit?",
             "What is a detached HEAD?", "Explain git bisect.", "What does git cherry-pick do?"]


def timed(step: str, cwd: Path, env: dict) -> tuple[float, float | None]:
    """Seconds for one step, and to its first byte on stdout."""
    started = time.perf_counter()
    process = subprocess.Popen(["bash", "-c", step], cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    first = process.stdout.read(1) and time.perf_counter() - started
    process.stdout.read()
    if process.wait():
        sys.exit(f"failed: {step}")
    return time.perf_counter() - started, first or None


def first_byte(conv: Path, env: dict, question: str) -> tuple[float, dict]:
    """ms to the answer's first byte from a new `conv ask -m local` process, and the turn's usage."""
    started = time.perf_counter()
    process = subprocess.Popen([str(conv), "ask", "-m", "local", "-q", question], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    process.stdout.read(1)
    took = (time.perf_counter() - started) * 1000
    process.stdout.read()
    process.wait()
    shown = json.loads(subprocess.run([str(conv), "show", "--json"], env=env, capture_output=True, check=True).stdout)
    return took, shown["turns"][-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--asks", type=int, default=9)
    args = parser.parse_args()
    steps = command().split(" && ")
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="conv-setup-") as place, tempfile.TemporaryDirectory(prefix="rt") as rt:
            checkout, env = fresh_machine(Path(place), rt)
            print(f"run {run + 1}: the README's set-up command, {len(steps)} steps, empty pip cache")
            total = 0.0
            for step in steps:
                took, first = timed(step, checkout, env)
                total += took
                extra = (f"  (first byte of the answer {first:.2f} s)" if step.startswith("~/.local/bin/conv ask")
                         else "")
                print(f"  {took:7.2f} s  {step[:90]}{extra}")
            print(f"  {total:7.2f} s  in all; budget <= {BUDGET:g} s: {'ok' if total <= BUDGET else 'OVER'}")
            conv = Path(place) / "home" / ".local" / "bin" / "conv"
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            loaded = [first_byte(conv, env, QUESTIONS[n % len(QUESTIONS)] + f" ({n})") for n in range(args.asks)]
            cold = []
            for n in range(max(3, args.asks // 3)):
                common.stop_hosts(Path(rt))
                cold.append(first_byte(conv, env, QUESTIONS[n % len(QUESTIONS)] + f" [{n}]"))
            common.stop_hosts(Path(rt))
            for name, samples in (("model loaded", loaded), ("nothing loaded", cold)):
                times = sorted(ms for ms, _ in samples)
                print(f"  first byte, new conv process, {name}: median {statistics.median(times):.0f} ms "
                      f"(min {times[0]:.0f}, max {times[-1]:.0f}, n {len(times)})"
                      + (f"; budget <= {FIRST_BYTE_BUDGET:g} ms: "
                         f"{'ok' if statistics.median(times) <= FIRST_BYTE_BUDGET else 'OVER'}"
                         if name == "model loaded" else ""))
            tokens = [turn["usage"]["completion_tokens"] for _, turn in loaded if turn.get("usage")]
            print(f"  answers: {statistics.median(tokens):.0f} tokens each (median); tokens/s: bench_providers.py")


if __name__ == "__main__":
    main()
