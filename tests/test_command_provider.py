"""The ``cmd:`` provider with real commands: ``cat`` and small Python scripts
written per test, run by the real ``conv`` process; what was stored is read
back with ``conv show --json``.

The scripts coordinate with the test through files (a gate the test creates,
a pid the script writes), never through sleeps alone.
"""

import json
import os
import select
import shlex
import signal
import subprocess
import sys
import time

import pytest
from conftest import conv_env, fails, ok


# -- helpers ---------------------------------------------------------------------------
def script(tmp_path, name: str, body: str) -> str:
    """A Python script in tmp_path, as the ``-m`` value that runs it."""
    path = tmp_path / name
    path.write_text("import os, signal, sys, time\n" + body)
    return "cmd:" + shlex.join([sys.executable, str(path)])


def turns(ref: str = "@") -> list[dict]:
    """The conversation's turns as conv stores them."""
    args = ("show", "--json") if ref == "@" else ("show", ref, "--json")
    return json.loads(ok(*args).stdout)["turns"]


def only_answer(question: str) -> dict:
    """The last conversation's one question and its one answer; the answer."""
    stored = turns()
    assert [t["role"] for t in stored] == ["user", "assistant"], stored
    assert stored[0]["content"] == question
    return stored[1]


def start_conv(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "conv", *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=conv_env())


def read_until(proc: subprocess.Popen, wanted: bytes, timeout: float = 20) -> bytes:
    """conv's stdout up to and including ``wanted``, read while conv still runs."""
    fd, got, deadline = proc.stdout.fileno(), b"", time.monotonic() + timeout
    while wanted not in got:
        assert time.monotonic() < deadline, f"{wanted!r} never arrived, got {got!r} (exit {proc.poll()})"
        if select.select([fd], [], [], 0.1)[0]:
            chunk = os.read(fd, 4096)
            assert chunk, f"conv closed stdout after {got!r}: {proc.communicate()[1].decode()}"
            got += chunk
    return got


def wait_for_file(path, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while not path.exists() or not path.read_text().endswith("\n"):
        assert time.monotonic() < deadline, f"{path} never written"
        time.sleep(0.02)
    return path.read_text().strip()


def gone(pid: int, timeout: float = 5) -> bool:
    """No such process, within ``timeout``: a grandchild killed with its group
    is a zombie until init reaps it; a live one never goes (it sleeps 60 s)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


# -- what the command reads -------------------------------------------------------------
def test_a_lone_question_goes_as_it_is_and_a_follow_up_as_a_transcript():
    assert ok("ask", "-m", "cmd:cat", "first question").stdout == b"first question\n"
    answer = only_answer("first question")
    assert (answer["content"], answer["finish"]) == ("first question", "stop")
    assert (answer["provider"], answer["model"]) == ("cmd", "cat")

    done = ok("ask", "-c", "-m", "cmd:cat", "second question")
    transcript = "User: first question\n\nAssistant: first question\n\nUser: second question"
    assert done.stdout.decode() == transcript + "\n"
    assert done.stderr == b""
    assert [t["content"] for t in turns()] == ["first question", "first question", "second question", transcript]


def test_the_system_prompt_comes_first():
    done = ok("ask", "--no-stream", "-s", "Be terse.", "-m", "cmd:cat", "why?")
    assert done.stdout.decode() == "System: Be terse.\n\nUser: why?\n"
    assert turns()[-1]["content"] == "System: Be terse.\n\nUser: why?"


# -- how the answer arrives --------------------------------------------------------------
def test_output_streams_while_the_command_runs_and_its_stderr_stays_quiet(tmp_path):
    gate = tmp_path / "gate"
    model = script(tmp_path, "slow.py", f"""
sys.stdin.read()
sys.stderr.write("loading model...\\n"); sys.stderr.flush()
print("first piece", flush=True)
while not os.path.exists({str(gate)!r}):
    time.sleep(0.02)
print("second piece")
""")
    proc = start_conv("ask", "-m", model, "go")
    try:
        first = read_until(proc, b"first piece")
        assert proc.poll() is None  # the command is still waiting for the gate
        gate.touch()
        rest, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err.decode()
    assert err == b""  # the command's stderr is not shown
    assert (first + rest).decode() == "first piece\nsecond piece\n"
    assert only_answer("go")["content"] == "first piece\nsecond piece"


def test_a_long_conversation_does_not_deadlock_a_command_that_writes_as_it_reads():
    """``cat`` answers before it has read everything: far more than a pipe holds."""
    text = "".join(f"line {n} of a long paste\n" for n in range(40000)).rstrip()  # ~1 MB
    done = ok("ask", "-m", "cmd:cat", input=text, timeout=60)
    assert done.stdout.decode() == text + "\n"
    assert only_answer(text)["content"] == text


def test_multibyte_characters_split_across_writes(tmp_path):
    text = "héllo wörld — € 𝄞 日本"
    model = script(tmp_path, "bytes.py", f"""
for byte in {text!r}.encode():
    sys.stdout.buffer.write(bytes([byte])); sys.stdout.flush()
    time.sleep(0.005)
""")
    assert ok("ask", "-m", model, "spell it").stdout.decode() == text + "\n"
    assert only_answer("spell it")["content"] == text


# -- failures ----------------------------------------------------------------------------
def test_a_failing_command_is_one_line_and_keeps_the_partial_answer():
    model = "cmd:sh -c 'printf \"partial answer\"; echo noise >&2; echo \"model llama9 not found\" >&2; exit 2'"
    line = fails("ask", "-m", model, "question", code=3)
    assert "status 2" in line and "model llama9 not found" in line and "noise" not in line
    answer = only_answer("question")
    assert (answer["content"], answer["finish"]) == ("partial answer", "error")
    assert "model llama9 not found" in answer["error"]


def test_command_not_found():
    line = fails("ask", "-m", "cmd:no-such-tool-4711 run it", "question", code=3)
    assert "command not found: no-such-tool-4711" in line and "cmd:/path/to/tool" in line
    assert only_answer("question")["finish"] == "error"


def test_silence_past_the_read_timeout_stops_the_command(tmp_path, conv_home):
    (conv_home / "config").mkdir(parents=True)
    (conv_home / "config" / "config.yaml").write_text("timeout:\n  read: 1\n")
    pid_file = tmp_path / "pid"
    model = script(tmp_path, "stall.py", f"""
open({str(pid_file)!r}, "w").write(f"{{os.getpid()}}\\n")
print("partial", flush=True)
time.sleep(60)
""")
    t0 = time.monotonic()
    line = fails("ask", "-m", model, "question", code=3)
    assert 1.0 <= time.monotonic() - t0 < 10
    assert "read timeout" in line
    assert gone(int(wait_for_file(pid_file)))
    answer = only_answer("question")
    assert (answer["content"], answer["finish"]) == ("partial", "error")


# -- Ctrl-C --------------------------------------------------------------------------------
STUBBORN = "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"  # only SIGKILL ends it


@pytest.mark.parametrize("how", ["ignores SIGTERM", "under sh"])
def test_ctrl_c_stops_the_command_and_keeps_the_partial_answer(tmp_path, how):
    pid_file = tmp_path / "pid"
    model = script(tmp_path, "sleepy.py", (STUBBORN if how == "ignores SIGTERM" else "") + f"""
open({str(pid_file)!r}, "w").write(f"{{os.getpid()}}\\n")
print("partial", flush=True)
time.sleep(60)
""")
    if how == "under sh":  # the pid is a grandchild: the process group must be stopped
        model = "cmd:sh -c " + shlex.quote(model.removeprefix("cmd:") + "; true")
    proc = start_conv("ask", "-m", model, "question")
    try:
        first = read_until(proc, b"partial")
        pid = int(wait_for_file(pid_file))
        time.sleep(0.1)  # past AnswerPrinter._write: a signal inside it is a separate, known race
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err.decode()
    assert err == b""
    assert (first + rest).decode() == "partial\n"
    assert gone(pid)
    answer = only_answer("question")
    assert (answer["content"], answer["finish"]) == ("partial", "interrupted")
