"""Long work shows a progress bar on a terminal and nothing when piped: an
index build over 8,000 conversations (tests/bench/genstore.py makes the
store), run under a pseudo-terminal (pexpect) and through a pipe."""

import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from conftest import conv_env, run_conv_process

GENSTORE = Path(__file__).parent / "bench" / "genstore.py"
pytestmark = pytest.mark.conv_process("what reaches a terminal is what is tested")


@pytest.fixture
def big_store(conv_home):
    subprocess.run([sys.executable, str(GENSTORE), "--home", str(conv_home), "--conversations", "8000",
                    "--turns", "2"], check=True, capture_output=True, env=conv_env())
    return conv_home


def test_reindex_shows_a_bar_on_a_terminal_and_nothing_when_piped(big_store):
    child = pexpect.spawn(sys.executable, ["-m", "conv", "reindex"], env=conv_env({"TERM": "xterm"}),
                          encoding="utf-8", timeout=120, dimensions=(24, 120))
    child.expect(r"conv: indexing conversations")
    child.expect(r"/8000")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    piped = run_conv_process("reindex", timeout=120)
    assert piped.returncode == 0 and b"indexing" not in piped.stderr and b"\x1b" not in piped.stderr
