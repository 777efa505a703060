"""The local model's host process (providers/local/host.py and hosting.py),
for real: the xllamacpp wheel on the pulled SmolLM2, or a runtime that
crashes on purpose (tests/crashing_runtime) where a crash is what is tested.

It stays loaded between questions and leaves once unused; Ctrl-C stops an
answer at once and keeps what came; a crash or a kill of the host, while it
loads or while it answers, keeps the question and what came and says what
happened in one line; its socket takes no one without the key and it opens
no TCP port."""

import glob
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest
from conftest import conv_env, fails, ok

from conv.providers.local.hosting import Host

CRASHING = str(Path(__file__).parent / "crashing_runtime")
LONG = "Write a long story about a dragon who learns to program, with many chapters."


def host_files(suffix: str) -> list[str]:
    return glob.glob(os.path.join(os.environ["XDG_RUNTIME_DIR"], "conv", f"*.{suffix}"))


def host_pid() -> int:
    [ready] = host_files("ready")
    return int(Path(ready).read_text())


def stored() -> dict:
    return json.loads(ok("show", "--json").stdout)


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/status").read_text().find("State:\tZ") < 0


def over_socket(request: bytes) -> bytes:
    [path] = host_files("sock")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(path)
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def test_the_model_stays_loaded_between_questions_and_leaves_once_unused(local_model):
    ok("config", "set", "local.max_answer", "16")
    ok("config", "set", "local.keep_alive", "2s")
    ok("ask", "-m", "local", "Name a colour.")
    pid = host_pid()
    ok("ask", "-m", "local", "-c", "Another one?")
    ok("ask", "-m", "local", "-c", "And a third?")
    assert host_pid() == pid and alive(pid)  # the same host answered all three
    assert wait_for(lambda: not alive(pid), 10), "the host outlived its keep_alive"
    assert not host_files("ready") and not host_files("sock")  # it cleared its files as it left


def test_a_host_with_keep_alive_0_leaves_after_its_answer(local_model):
    ok("config", "set", "local.max_answer", "16")
    ok("config", "set", "local.keep_alive", "0")
    ok("ask", "-m", "local", "Name a colour.")
    [lock] = host_files("lock")
    host = Host(lock.removesuffix(".lock"))
    assert wait_for(lambda: not host.alive(), 5)  # its lock free: the process has gone
    assert not host_files("ready") and not host_files("sock")  # it cleared its files as it left
    ok("ask", "-m", "local", "-c", "Another?")  # a new host answers


def test_its_socket_is_private_and_it_opens_no_tcp_port(local_model):
    ok("config", "set", "local.max_answer", "16")
    ok("ask", "-m", "local", "Name a colour.")
    folder = Path(os.environ["XDG_RUNTIME_DIR"]) / "conv"
    assert folder.stat().st_mode & 0o777 == 0o700
    [key] = host_files("key")
    assert Path(key).stat().st_mode & 0o777 == 0o600
    body = b'{"messages":[{"role":"user","content":"hi"}],"max_tokens":4}'
    head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n"
    refused = over_socket(head + b"Content-Length: %d\r\n\r\n" % len(body) + body)
    assert refused.startswith(b"HTTP/1.1 401")
    keyed = over_socket(head + b"Authorization: Bearer " + Path(key).read_bytes().strip()
                        + b"\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    assert keyed.startswith(b"HTTP/1.1 200")
    pid = host_pid()
    sockets = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
    inodes = {s[8:-1] for s in sockets if s.startswith("socket:[")}
    listening = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A":  # LISTEN
                listening.add(fields[9])
    assert inodes and not inodes & listening


def test_ctrl_c_stops_a_local_answer_at_once_and_keeps_what_came(local_model, conv_home):
    ok("config", "set", "local.max_answer", "400")
    child = pexpect.spawn(sys.executable, ["-m", "conv", "ask", "-m", "local", "--plain", LONG],
                          env=conv_env({"TERM": "xterm"}), timeout=120)
    child.expect(r"\w+ \w+ \w+")  # a few words have come
    time.sleep(0.3)
    pid = host_pid()
    started = time.monotonic()
    child.sendintr()
    child.expect(pexpect.EOF)
    child.wait()
    took = time.monotonic() - started
    assert took <= 0.5, f"Ctrl-C took {took:.2f} s"
    assert child.exitstatus == 130 or child.signalstatus == signal.SIGINT
    answer = stored()["turns"][-1]
    assert answer["role"] == "assistant" and answer["finish"] == "interrupted" and answer["content"].strip()
    assert alive(pid)  # the host stays for the next question, and stops writing this answer
    key = Path(host_files("key")[0]).read_bytes().strip()
    metrics = lambda: over_socket(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key  # noqa: E731
                                  + b"\r\nConnection: close\r\n\r\n")
    assert wait_for(lambda: b"llamacpp:requests_processing 0" in metrics(), 2)


def test_a_host_killed_while_answering_keeps_the_question_and_what_came(local_model):
    ok("config", "set", "local.max_answer", "400")
    asking = subprocess.Popen([sys.executable, "-m", "conv", "ask", "-m", "local", LONG], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=conv_env())
    assert asking.stdout.read(40)  # it is answering
    os.kill(host_pid(), signal.SIGKILL)  # as the kernel's OOM killer would
    out, err = asking.communicate(timeout=30)
    assert asking.returncode == 3, err
    line = err.decode().strip()
    assert "Traceback" not in line and len(line.splitlines()) == 1
    assert "the local model's process ended while answering without a word: killed" in line
    assert "What came is kept; conv retry asks again" in line
    question, answer = stored()["turns"][-2:]
    assert question["content"] == LONG
    assert answer["finish"] == "error" and len(answer["content"]) >= 40
    ok("config", "set", "local.max_answer", "16")
    ok("retry")  # a new host answers
    assert stored()["turns"][-1]["finish"] in ("stop", "length")


@pytest.mark.parametrize("when, said, hint", [
    ("load", "the local model crashed while loading: Segmentation fault",
     "The question is kept; conv retry asks again"),
    ("import", "the local model crashed while loading: Illegal instruction", "CMAKE_ARGS=-DGGML_NATIVE=OFF"),
])
def test_a_runtime_that_crashes_while_loading_is_named(local_model, when, said, hint):
    env = {"PYTHONPATH": CRASHING, "CRASHING_RUNTIME": when}
    line = fails("ask", "-m", "local", "Explain git rebase.", code=3, env=env)
    assert said in line and hint in line
    question, failed = stored()["turns"][-2:]
    assert question["content"] == "Explain git rebase." and failed["finish"] == "error"  # kept, and why it failed


def test_a_runtime_that_crashes_while_answering_keeps_what_came(local_model):
    env = {"PYTHONPATH": CRASHING, "CRASHING_RUNTIME": "answer"}
    done = subprocess.run([sys.executable, "-m", "conv", "ask", "-m", "local", "Explain git rebase."],
                          capture_output=True, env=conv_env(env), timeout=60)
    assert done.returncode == 3
    assert done.stdout.decode().startswith("Half an answer")  # shown as it came
    line = done.stderr.decode().strip()
    assert "the local model crashed while answering: Segmentation fault" in line and "Traceback" not in line
    question, answer = stored()["turns"][-2:]
    assert question["content"] == "Explain git rebase."
    assert answer["content"] == "Half an answer" and answer["finish"] == "error"


def test_a_file_that_is_no_model_is_refused_in_one_line(local_model, tmp_path):
    bogus = tmp_path / "notes.gguf"
    bogus.write_text("not a model\n")
    line = fails("ask", "-m", f"local:{bogus}", "hello", code=3)
    assert f"could not load {bogus}" in line and "GGUF" in line
    assert stored()["turns"][-2]["content"] == "hello"


def test_without_the_model_file_conv_says_how_to_get_it(conv_home):
    line = fails("ask", "-m", "local", "hello", code=3)
    assert "conv models pull" in line
    chain = json.loads(ok("models", "--json").stdout)["chain"]
    assert "conv models pull" in chain[-1]["detail"] and not chain[-1]["chosen"]


def test_the_hosts_line_is_read_on_a_descriptor_past_1023():
    """A process that holds many files (a test worker running conv in-process,
    an editor plugin) gets high descriptors for the host's pipe: select()
    refused them ("filedescriptor out of range"), and every local answer failed."""
    from conv.providers.local.hosting import _read_line

    read, write = os.pipe()
    high = os.dup2(read, 1500)
    os.close(read)
    try:
        os.write(write, b"ready 1234\n")
        with open(high, "rb", buffering=0, closefd=False) as pipe:
            assert _read_line(pipe, time.monotonic() + 5) == "ready 1234"
    finally:
        os.close(high)
        os.close(write)
