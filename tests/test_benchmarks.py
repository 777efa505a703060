"""Every benchmark in tests/bench/ runs as written: each once, with the
fewest runs and the smallest stores its options allow (a smoke run, never a
figure), in a folder of its own, and prints its figures. One had crashed
unseen for a whole session (bench_manage reading logs.db through an importer
that had moved); these keep that from happening again. llm and shell-gpt are
the suite's own (tests/real_tools.py), not installed again."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import pip_tools

BENCH = Path(__file__).resolve().parent / "bench"
SMOKE = {  # script -> its smallest run
    "bench_ask": ["--runs", "1", "--sizes", "10", "--turns", "2"],
    "bench_blame": ["--runs", "1", "--sizes", "20", "--lines", "40", "--sessions", "4"],
    "bench_capture": ["--runs", "1", "--sizes", "10"],
    "bench_capture_agents": ["--runs", "1", "--agents", "qwen"],  # the real agent, from the suite
    "bench_catch_up": ["--runs", "1", "--agents", "pi"],
    "bench_commit": ["--exchanges", "2", "--conversations", "20"],
    "bench_complete": ["--runs", "1", "--conversations", "20"],
    "bench_import": ["--conversations", "20", "--runs", "1"],
    "bench_import_claude_code": ["--sessions", "5", "--messages", "4", "--runs", "1"],
    "bench_list": ["--runs", "1", "--rebuilds", "1", "--after", "1", "--conversations", "20"],
    "bench_manage": ["--runs", "1", "--git-runs", "1", "--conversations", "20", "--no-llm"],  # llm: compare's
    "bench_mcp": ["--runs", "1", "--sizes", "20"],
    "bench_picker": ["--runs", "1", "--sizes", "20"],
    "bench_network": ["--runs", "1"],
    "bench_render": ["--runs", "1"],
    "bench_serve": ["--runs", "1", "--sizes", "20"],
    "bench_shell": ["--quick", "--shells", "bash"],
    "bench_stats": ["--runs", "1", "--sizes", "20"],
    "bench_sync": ["--runs", "1", "--full-runs", "1", "--pull-runs", "1", "--conversations", "20"],
    "bench_providers": ["--runs", "1", "--only", "openai,anthropic,cmd"],
    "bench_redaction": ["--runs", "1", "--megabytes", "1", "--sizes", "20"],
    "bench_recall": ["--dialogues", "1", "--no-cli"],  # LoCoMo from ../shared/recall, beside the checkout
    "compare": ["--runs", "1", "--sizes", "10", "--no-aggressive", "--no-plot"],
}


SETUP = "bench_setup"  # times the README's set-up, which readme_setup.py runs for tests/test_setup.py every suite


def test_every_benchmark_is_smoke_run():
    found = {p.stem for p in BENCH.glob("bench_*.py")} | {"compare"}
    assert found - {SETUP} == set(SMOKE), found ^ set(SMOKE)


@pytest.mark.parametrize("script", SMOKE)
def test_the_benchmark_runs_as_written(script, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    tools = pip_tools("llm", "sgpt")  # the venvs compare and bench_manage would make: the suite's own
    for name, command in (("llm-venv", tools["llm"]), ("sgpt-venv", tools["sgpt"])):
        (out / name).symlink_to(command.parent.parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONV_", "OPENAI_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, str(BENCH / f"{script}.py"), *SMOKE[script]], capture_output=True,
                          text=True, env={**env, "CONV_BENCH_OUT": str(out)}, timeout=600)
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    assert " ms" in done.stdout or " s " in done.stdout, done.stdout[-2000:]
