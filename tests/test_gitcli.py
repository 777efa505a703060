"""store/repo/gitcli.py runs git without subprocess (conv push's budget). Here a
stand-in ``git`` on PATH tests what a runner must get right: both streams
drained while git runs (one full pipe must not stall the other), the exit
code, no git at all, git's input closed, the signals git starts with, and
the caller's own work done while git runs."""

import os
import stat
import sys
import time

import pytest

from conv.store.repo import gitcli


@pytest.fixture
def fake_git(tmp_path, monkeypatch):
    def install(script: str) -> None:
        path = tmp_path / "bin" / "git"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"#!{sys.executable}\nimport sys\n{script}\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        monkeypatch.setenv("PATH", str(path.parent))
    return install


def test_both_streams_are_read_while_git_writes_more_than_a_pipe_holds(fake_git):
    fake_git("sys.stderr.write('e' * 300_000); sys.stderr.flush(); sys.stdout.write('o' * 300_000); sys.exit(3)")
    done = gitcli.run("anything")
    assert (done.returncode, len(done.stdout), len(done.stderr)) == (3, 300_000, 300_000)


def test_arguments_reach_git_as_they_are_and_its_input_is_closed(fake_git):
    fake_git("print(repr(sys.argv[1:])); print(repr(sys.stdin.read()))")
    done = gitcli.run("push", "--porcelain", "a b", "ü;$(x)")
    assert done.stdout.splitlines() == [repr(["push", "--porcelain", "a b", "ü;$(x)"]), "''"]
    assert done.returncode == 0


def test_output_that_is_not_utf8_is_replaced_not_fatal(fake_git):
    fake_git("sys.stdout.buffer.write(b'caf\\xe9\\n')")
    assert gitcli.run().stdout == "caf\ufffd\n"


def test_no_git_on_path_is_file_not_found_and_leaves_no_descriptor_open(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    before = len(os.listdir("/proc/self/fd"))
    with pytest.raises(FileNotFoundError):
        gitcli.run("--version")
    assert len(os.listdir("/proc/self/fd")) == before


def test_an_environment_given_is_the_one_git_gets(fake_git):
    fake_git("import os; print(os.environ.get('GIT_TERMINAL_PROMPT'))")
    assert gitcli.run(env={**os.environ, "GIT_TERMINAL_PROMPT": "0"}).stdout == "0\n"


def test_interrupted_while_git_runs_git_is_stopped_and_reaped(fake_git, tmp_path):
    """Ctrl-C sent to conv alone (kill -INT): the git it started does not go on by itself."""
    import signal
    import subprocess
    import time

    pid_file = tmp_path / "git.pid"
    fake_git(f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)")
    code = ("import signal\nfrom conv.store.repo import gitcli\n"
            "def stop(*a): raise KeyboardInterrupt\nsignal.signal(signal.SIGINT, stop)\n"
            "try:\n    gitcli.run('push')\nexcept KeyboardInterrupt:\n    print('interrupted', flush=True)\n")
    conv = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=os.environ)
    for _ in range(200):
        if pid_file.exists() and pid_file.read_text():
            break
        time.sleep(0.05)
    git_pid = int(pid_file.read_text())
    conv.send_signal(signal.SIGINT)
    out, _ = conv.communicate(timeout=10)
    assert out == "interrupted\n"
    with pytest.raises(ProcessLookupError):
        os.kill(git_pid, 0)


def test_git_starts_with_sigpipe_at_its_default_as_subprocess_gives_it(tmp_path, monkeypatch):
    """Python ignores SIGPIPE and an ignored signal stays ignored across exec:
    git writing into a closed pipe would then go on instead of ending. (The
    stand-in is a shell script here: a Python one would ignore SIGPIPE itself.)"""
    import signal

    path = tmp_path / "bin" / "git"
    path.parent.mkdir()
    path.write_text("#!/bin/sh\nexec grep SigIgn: /proc/self/status\n")
    path.chmod(0o755)
    monkeypatch.setenv("PATH", f"{path.parent}:/usr/bin:/bin")
    ignored = int(gitcli.run().stdout.split()[1], 16)
    assert not ignored >> (signal.SIGPIPE - 1) & 1


def test_meanwhile_runs_while_git_runs(fake_git, tmp_path):
    """git here waits for a file that only ``meanwhile`` makes: run one after
    the other, it would give up after 20 s and fail."""
    flag = tmp_path / "meanwhile-ran"
    fake_git(f"import os, time\nfor _ in range(400):\n    if os.path.exists({str(flag)!r}): sys.exit(0)\n"
             "    time.sleep(0.05)\nsys.exit('meanwhile never ran while git ran')")
    assert gitcli.run("push", meanwhile=flag.touch).returncode == 0


def test_a_failing_meanwhile_stops_git_and_is_raised(fake_git, tmp_path):
    pid_file = tmp_path / "git.pid"
    fake_git(f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)")

    def meanwhile():
        for _ in range(200):
            if pid_file.exists() and pid_file.read_text():
                raise RuntimeError("meanwhile failed")
            time.sleep(0.05)

    with pytest.raises(RuntimeError, match="meanwhile failed"):
        gitcli.run("push", meanwhile=meanwhile)
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)
