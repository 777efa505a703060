"""Long work shows a progress bar on a terminal and nothing when piped: an
index build over 10,000 conversations (tests/bench/genstore.py makes the
store and its index once for the module, without gc, in about 9 s; the
build takes about 2.8 s on two cores, past the second a bar waits for, so a
Ctrl-C lands while workers read), run under a pseudo-terminal (pexpect) and
through a pipe."""

import shutil
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from conftest import conv_env, run_conv_process

GENSTORE = Path(__file__).parent / "bench" / "genstore.py"
pytestmark = pytest.mark.conv_process("what reaches a terminal is what is tested")


CONVERSATIONS = 10_000


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    home = tmp_path_factory.mktemp("generated")
    subprocess.run([sys.executable, str(GENSTORE), "--home", str(home), "--conversations", str(CONVERSATIONS),
                    "--turns", "2", "--no-upkeep"], check=True, capture_output=True,
                   env=conv_env({"CONV_HOME": str(home)}))
    return home


@pytest.fixture
def big_store(generated, conv_home):
    shutil.copytree(generated, conv_home, dirs_exist_ok=True)
    return conv_home


def test_reindex_shows_a_bar_on_a_terminal_and_nothing_when_piped(big_store):
    child = pexpect.spawn(sys.executable, ["-m", "conv", "reindex"], env=conv_env({"TERM": "xterm"}),
                          encoding="utf-8", timeout=120, dimensions=(24, 120))
    child.expect(r"conv: indexing conversations")
    child.expect(rf"/{CONVERSATIONS}")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    piped = run_conv_process("reindex", timeout=120)
    assert piped.returncode == 0 and b"indexing" not in piped.stderr and b"\x1b" not in piped.stderr


def test_ctrl_c_during_a_build_by_worker_processes_exits_130_and_leaves_the_index_as_it_was(big_store):
    """A build of many conversations parses them in worker processes, which a
    terminal's Ctrl-C reaches too: they ignore it, conv stops them and exits
    130 with no traceback, no worker is left behind, and the index of before
    still answers."""
    before = run_conv_process("list", "-n", "3", "--json").stdout  # the index genstore built
    child = pexpect.spawn(sys.executable, ["-m", "conv", "reindex"], env=conv_env({"TERM": "xterm"}),
                          encoding="utf-8", timeout=120, dimensions=(24, 120))
    child.expect(rf"[^0-9][1-9][0-9]*/{CONVERSATIONS}")  # under way: workers are reading
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.signalstatus is None and child.exitstatus == 130
    assert "Traceback" not in child.before and "Error" not in child.before
    left = subprocess.run(["pgrep", "-f", f"{sys.executable} -m conv reindex"], capture_output=True, text=True)
    assert left.stdout == ""
    assert run_conv_process("list", "-n", "3", "--json").stdout == before
    assert not list((big_store / "cache").glob(".index.sqlite.*.tmp"))


def test_ctrl_c_while_worker_processes_read_an_import_exits_130_and_writes_nothing(tmp_path, conv_home):
    """An import of many agent sessions reads them in worker processes (with a
    bar on a terminal): Ctrl-C there exits 130 without a traceback, leaves no
    worker behind and commits nothing."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_import_cc", GENSTORE.parent / "bench_import_claude_code.py")
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    generator.sessions(tmp_path / "sessions", 1500, 50)  # about 3 s of reading on two cores
    before = run_conv_process("list", "--json").stdout
    child = pexpect.spawn(sys.executable, ["-m", "conv", "import", "--from", "claude-code", str(tmp_path / "sessions")],
                          env=conv_env({"TERM": "xterm"}), encoding="utf-8", timeout=120, dimensions=(24, 120))
    child.expect(r"reading sessions.*[^0-9][1-9][0-9]*/1500")  # under way: workers are reading
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.signalstatus is None and child.exitstatus == 130
    assert "Traceback" not in child.before
    left = subprocess.run(["pgrep", "-f", f"{sys.executable} -m conv import"], capture_output=True, text=True)
    assert left.stdout == ""
    assert run_conv_process("list", "--json").stdout == before  # nothing was written
