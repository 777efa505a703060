"""conv capture, as an agent's hook runs it: it returns at once, exits 0 and
prints nothing whatever it is handed; the session lands in the background,
once, however many hooks end together; what went wrong (or was kept out) is
said once by the next command a person runs; and import.auto catches up on
what no hook reached."""

import json
import os
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import conv_env, ok, run_conv

sys.path.insert(0, str(Path(__file__).parent / "bench"))
from bench_import_claude_code import sessions  # noqa: E402

KEY = "sk-proj-" + "Q7x9" * 12


@pytest.fixture
def claude(tmp_path, monkeypatch):
    """Claude Code's folder with three generated sessions, connected."""
    folder = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    sessions(folder / "projects", 3, 8)
    ok("connect", "claude-code")
    return sorted((folder / "projects").glob("*/*.jsonl"))


def hook(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    """``conv capture ARGS`` as the agent runs it: a process of its own."""
    return subprocess.run([sys.executable, "-m", "conv", "capture", *args], input=stdin, capture_output=True,
                          env=conv_env(), timeout=30)


def handed(file) -> bytes:
    return json.dumps({"session_id": "s", "transcript_path": str(file), "cwd": "/", "hook_event_name": "Stop"}).encode()


def until(check, within: float = 20):
    deadline = time.monotonic() + within
    while not (found := check()):
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.1)
    return found


def listed() -> list:
    return json.loads(ok("list", "--json").stdout)


def to_say() -> Path:
    return Path(os.environ["CONV_HOME"]) / "state" / "capture" / "to-say"


def log() -> str:
    where = Path(os.environ["CONV_HOME"]) / "state" / "capture" / "log"
    return where.read_text() if where.exists() else ""


def queue_empty() -> bool:
    queue = Path(os.environ["CONV_HOME"]) / "state" / "capture" / "queue"
    return not queue.exists() or not any(queue.iterdir())


@pytest.mark.parametrize("stdin", [b"", b"garbage", b"[1]", b"{}", b'{"transcript_path": 5}',
                                   b'{"transcript_path": "/etc/passwd"}', b"[" * 200_000, b"x" * 3_000_000,
                                   b'{"transcript_path": "\xff.jsonl"}'])
def test_whatever_claude_code_hands_over_the_hook_exits_0_and_prints_nothing(claude, stdin):
    done = hook("claude-code", stdin=stdin)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


@pytest.mark.parametrize("thread", ["../../etc", "*", "a/b", "", "x" * 500])
def test_a_codex_thread_id_that_is_no_id_is_never_a_path(thread, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    ok("connect", "codex")
    done = hook("codex", json.dumps({"type": "agent-turn-complete", "thread-id": thread}))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert queue_empty()


def test_a_transcript_that_is_a_fifo_is_never_waited_on(claude, tmp_path):
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    assert hook("claude-code", stdin=handed(fifo)).returncode == 0
    until(lambda: queue_empty() and to_say().exists())
    assert f"{fifo} is neither a file nor a folder" in ok("list").stderr.decode()


def test_a_session_lands_once_however_many_hooks_end_together(claude):
    runs = [subprocess.Popen([sys.executable, "-m", "conv", "capture", "claude-code"], stdin=subprocess.PIPE,
                             env=conv_env()) for _ in range(6)]
    for n, run in enumerate(runs):
        run.communicate(handed(claude[n % 3]))  # two hooks for each of three sessions
        assert run.returncode == 0
    until(lambda: len(listed()) == 3 and queue_empty())
    assert sorted(c["turns"] for c in listed()) == [4, 4, 4]
    log = (Path(os.environ["CONV_HOME"]) / "state" / "capture" / "log").read_text()
    assert log.count("1 new") == 3


def _workers() -> list[str]:
    """The capture workers of this test's store now running (their command lines)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            line = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--work" in line and f"CONV_HOME={os.environ['CONV_HOME']}".encode() in env:
            found.append(pid)
    return found


def test_a_hook_starts_no_worker_while_one_works_and_its_job_is_taken_all_the_same(claude):
    """Thirty hooks at once started thirty workers, each a Python start fighting the hooks for the cores:
    the slowest hook took four times a bare start. While a worker holds the lock, a hook only queues."""
    import fcntl

    folder = Path(os.environ["CONV_HOME"]) / "state" / "capture"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # as a worker holds it
        assert hook("claude-code", stdin=handed(claude[0])).returncode == 0
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            assert not _workers(), "a worker was started while one held the lock"
            time.sleep(0.02)
        assert not queue_empty()  # queued, for the holder to take when it looks again
    assert hook("claude-code", stdin=handed(claude[1])).returncode == 0  # no holder now: a worker starts
    until(lambda: queue_empty() and len(listed()) == 2)


def test_hooks_at_once_leave_their_jobs_to_the_worker_one_of_them_started(claude):
    """Thirty hooks at once, before the first worker held the lock, started a worker each (the slowest hook took
    2.6 times a bare start). One that starts a worker marks it; the others leave their jobs to it; a mark whose
    worker never reached the lock is old after 10 s, and the next hook starts one."""
    folder = Path(os.environ["CONV_HOME"]) / "state" / "capture"
    folder.mkdir(parents=True, exist_ok=True)
    mark = folder / "starting"
    mark.touch()  # as a hook that has just started a worker leaves it
    assert hook("claude-code", stdin=handed(claude[0])).returncode == 0
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline:
        assert not _workers(), "a second worker was started"
        time.sleep(0.02)
    assert not queue_empty()
    os.utime(mark, (time.time() - 20,) * 2)  # its worker never came
    assert hook("claude-code", stdin=handed(claude[1])).returncode == 0
    until(lambda: queue_empty() and len(listed()) == 2)
    assert not mark.exists()  # taken away by the worker once it held the lock


@pytest.mark.parametrize("made", ["a folder", "a dangling link"])
def test_a_mark_that_is_no_file_of_convs_stops_no_capture(claude, made):
    """Found by a hostile pass: a folder where the mark goes crashed every worker as it took the lock, and a
    dangling link was read as a worker on its way: nothing was captured again, and nothing said why."""
    mark = Path(os.environ["CONV_HOME"]) / "state" / "capture" / "starting"
    mark.parent.mkdir(parents=True, exist_ok=True)
    if made == "a folder":
        mark.mkdir()
        os.utime(mark, (time.time() - 60,) * 2)
    else:
        mark.symlink_to(mark.parent / "nowhere")
    assert hook("claude-code", stdin=handed(claude[0])).returncode == 0
    until(lambda: queue_empty() and len(listed()) == 1)
    assert not os.path.lexists(mark)


def test_jobs_a_killed_worker_left_are_taken_up_by_the_next_command(claude):
    """Found by a hostile pass: a worker killed while it waited left its job queued until some later hook."""
    folder = Path(os.environ["CONV_HOME"]) / "state" / "capture"
    (folder / "queue").mkdir(parents=True, exist_ok=True)
    job = {"source": "claude-code", "file": str(claude[0]), "cwd": "/", "answer": None, "at": time.time()}
    (folder / "queue" / "1-1.json").write_text(json.dumps(job))  # as a hook queued it, its worker gone since
    ok("list")
    until(lambda: queue_empty() and len(listed()) == 1)


def test_a_catch_up_asked_while_a_worker_waits_on_a_session_file_goes_first(claude):
    """Found by a hostile pass: conv connect's catch-up waited for a hook's job to settle, up to 30 s."""
    ok("config", "set", "import.auto", "on")
    until(lambda: len(listed()) == 3)
    until(lambda: not _workers())
    waiting = json.dumps({"session_id": "s", "transcript_path": str(claude[1]), "cwd": "/",
                          "hook_event_name": "Stop", "last_assistant_message": "words this session never holds"})
    assert hook("claude-code", stdin=waiting.encode()).returncode == 0  # its worker waits up to 30 s for them
    more = claude[0].parent / "99999999-0000-4000-8000-000000000000.jsonl"
    more.write_text(claude[2].read_text().replace(claude[2].stem, more.stem))
    assert hook("--work", "--catch-up").returncode == 0  # the lock held: asked of the one waiting
    until(lambda: len(listed()) == 4, within=25)  # not after the 30 s that job may wait


def test_a_hook_imports_one_source_and_starts_its_worker_holding_none_of_the_agents_pipes(claude):
    """A hook's start named one tool and imported all eighteen, and subprocess to start the worker: a third
    of its CPU. The worker is started by posix_spawn, in a session of its own, with none of the hook's files:
    the agent waits on its hook's pipes until every holder of them is gone."""
    code = ("import sys, atexit\n"
            "atexit.register(lambda: print(sorted(m for m in sys.modules if m.startswith(('conv.sources.', "
            "'subprocess'))), file=sys.stderr))\n"
            "sys.argv = ['conv', 'capture', 'claude-code']\n"
            "from conv.__main__ import main\n"
            "main()\n")
    read, write = os.pipe()
    run = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=conv_env(), pass_fds=(write,))
    os.close(write)
    out, err = run.communicate(handed(claude[0]), timeout=30)
    assert run.returncode == 0 and out == b""
    workers = until(_workers)  # waiting a second for the session file to stay as it is
    for pid in workers:
        try:
            held = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
            assert f"pipe:[{os.fstat(read).st_ino}]" not in held and os.getsid(int(pid)) == int(pid)
        except (FileNotFoundError, ProcessLookupError):  # done meanwhile
            pass
    os.close(read)
    loaded = set(eval(err.decode().strip().splitlines()[-1]))
    assert loaded == {"conv.sources.claude_code", "conv.sources.claude_code.hook", "conv.sources.contract",
                      "conv.sources.hooks"}, loaded
    until(lambda: queue_empty() and len(listed()) == 1)


def test_nothing_is_captured_for_an_agent_not_connected(claude):
    ok("connect", "claude-code", "--remove")
    assert hook("claude-code", stdin=handed(claude[0])).returncode == 0
    time.sleep(1)
    assert queue_empty() and not (Path(os.environ["CONV_HOME"]) / "store.git").exists()


def test_a_session_holding_a_key_is_kept_out_and_said_once(claude):
    records = claude[0].read_text().splitlines()
    first = json.loads(records[1])
    first["message"]["content"] = f"my key is {KEY}, why does it fail?"
    claude[0].write_text("\n".join([records[0], json.dumps(first), *records[2:]]) + "\n")
    hook("claude-code", stdin=handed(claude[0]))
    hook("claude-code", stdin=handed(claude[1]))
    until(lambda: queue_empty() and to_say().exists())
    said = ok("list").stderr.decode()
    assert f"claude-code session {claude[0]}: turn 1 holds what looks like an OpenAI API key, so it and the 3 " \
        "turns after it stay out of the store" in said
    assert f"CONV_ALLOW_SECRETS=1 conv import --from claude-code {claude[0]} takes them in" in said
    assert len(listed()) == 1  # the other session is in
    assert ok("list").stderr.decode() == ""  # said by the first command after it, only
    hook("claude-code", stdin=handed(claude[0]))  # the same session ends again: not said again
    until(queue_empty)
    time.sleep(0.5)
    assert "looks like" not in ok("list").stderr.decode()
    assert KEY not in ok("git", "log", "-p", "--all").stdout.decode()


def test_what_went_wrong_is_said_by_the_next_command_once(claude, tmp_path):
    broken = claude[0].with_name("broken.jsonl")
    broken.write_text("not json at all\n" * 3)
    assert hook("claude-code", stdin=handed(broken)).returncode == 0
    until(lambda: queue_empty() and to_say().exists())
    said = ok("list").stderr.decode()
    assert f"capturing the claude-code session {broken} failed: nothing in {broken} could be read" in said
    assert said.count("\n") == 2  # that line, and the empty store's
    assert "failed" not in ok("list").stderr.decode()


def test_import_auto_catches_up_on_what_no_hook_reached(claude, tmp_path, monkeypatch):
    ok("list")
    time.sleep(0.5)
    assert listed() == []  # off by default
    ok("config", "set", "import.auto", "on")
    until(lambda: len(listed()) == 3)  # that command (or the next) started it
    stamp = Path(os.environ["CONV_HOME"]) / "state" / "capture" / "catch-up.stamp"
    os.utime(stamp, (time.time() - 120, time.time() - 120))
    sessions(tmp_path / "more", 4, 4)
    newest = sorted((tmp_path / "more").glob("*/*.jsonl"))[3]
    target = claude[0].parent / "99999999-0000-4000-8000-000000000000.jsonl"
    target.write_text(newest.read_text().replace("00000003-0000-4000-8000-000000000000",
                                                 "99999999-0000-4000-8000-000000000000"))
    ok("list")
    until(lambda: len(listed()) == 4)
    assert json.loads(ok("list", "--source", "claude-code", "--json").stdout)[0]["source"] == "claude-code"


def test_a_tool_connected_with_import_auto_on_has_what_it_wrote_before_caught_up_at_once(claude):
    """Found measuring the catch-up: with import.auto on, a tool connected after a command had run found its
    earlier sessions in the store only a minute later (that command's catch-up passed it over, not connected)."""
    ok("connect", "claude-code", "--remove")
    ok("config", "set", "import.auto", "on")
    assert listed() == []  # a command: its catch-up finds claude-code not connected
    caught_up = Path(os.environ["CONV_HOME"]) / "state" / "capture" / "catch-up.json"
    until(lambda: caught_up.exists() and not _workers())
    ok("connect", "claude-code")
    until(lambda: len(listed()) == 3, within=30)


def test_a_catch_up_asked_of_a_worker_that_found_the_lock_held_is_done_by_the_holder(claude):
    """A catch-up's worker that found a hook's worker at work left, and its catch-up with it, for a minute."""
    import fcntl

    ok("config", "set", "import.auto", "on")
    until(lambda: len(listed()) == 3)
    until(lambda: not _workers())
    more = claude[0].parent / "99999999-0000-4000-8000-000000000000.jsonl"
    more.write_text(claude[2].read_text().replace(claude[2].stem, more.stem))
    folder = Path(os.environ["CONV_HOME"]) / "state" / "capture"
    with open(folder / "lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # as a hook's worker holds it
        assert hook("--work", "--catch-up").returncode == 0  # finds it held: leaves
    assert hook("--work").returncode == 0  # the next worker, a hook's: it does the catch-up asked for
    assert len(listed()) == 4


def test_a_capture_that_failed_is_said_with_the_import_to_run_and_tried_again(claude, store_path):
    store_path.parent.mkdir(parents=True, exist_ok=True)
    store_path.write_text("not a store")  # the store cannot be opened: every write fails
    hook("claude-code", stdin=handed(claude[0]))
    until(lambda: queue_empty() and to_say().exists())
    said = run_conv("list").stderr.decode()  # (the listing fails too: the store is broken)
    assert f"capturing the claude-code session {claude[0]} failed" in said
    assert f"conv import --from claude-code {claude[0]} takes it in" in said
    store_path.unlink()
    hook("claude-code", stdin=handed(claude[1]))  # the next capture tries the failed one again
    until(lambda: len(listed()) == 2)


def test_a_state_folder_conv_cannot_write_still_gets_the_failure_said(claude, tmp_path, monkeypatch):
    aside = tmp_path / "tmp"  # the system's temporary folder, this test's own (an earlier run's is not this one's)
    aside.mkdir()
    monkeypatch.setenv("TMPDIR", str(aside))
    capture = Path(os.environ["CONV_HOME"]) / "state" / "capture"  # (root writes anywhere: a file blocks it)
    shutil.rmtree(capture, ignore_errors=True)
    capture.write_text("a file where the capture's folder would be")
    assert hook("claude-code", stdin=handed(claude[0])) .returncode == 0
    said = run_conv("list").stderr.decode()
    assert f"capturing the claude-code session {claude[0]} failed: conv's state folder cannot be written" in said
    assert f"conv import --from claude-code {claude[0]} takes it in" in said
    assert "failed" not in run_conv("list").stderr.decode()
    capture.unlink()  # the state folder can be written again: the next capture takes the one set aside too
    hook("claude-code", stdin=handed(claude[1]))
    until(lambda: len(listed()) == 2)


def test_a_session_that_wrote_nothing_is_passed_over_quietly(claude, tmp_path):
    """claude --version and claude mcp list end a session too, with no transcript file."""
    assert hook("claude-code", stdin=handed(tmp_path / "never-written.jsonl")).returncode == 0
    time.sleep(0.5)
    assert queue_empty() and "capturing" not in ok("list").stderr.decode()


def test_the_same_failure_later_is_said_again(claude, store_path, monkeypatch):
    from conv.home import to_say

    to_say.keep_to_say("capturing the claude-code session x failed: no space", "conv import takes it in")
    assert "no space" in ok("list").stderr.decode()
    to_say.keep_to_say("capturing the claude-code session x failed: no space", "conv import takes it in")
    assert "no space" not in ok("list").stderr.decode()  # the same hour: said once
    monkeypatch.setattr(to_say, "TOLD_FOR", 0)
    to_say.keep_to_say("capturing the claude-code session x failed: no space", "conv import takes it in")
    assert "no space" in ok("list").stderr.decode()  # hours later: said again


def late_transcript(folder: Path, answer: str, at: str = "2026-11-28T10:00:0") -> tuple[Path, list[str]]:
    """A session file as Claude Code's TUI leaves it when its Stop hook runs:
    only its metadata lines yet; the exchange (returned, asked at ``at`` and
    answered 2 s later) is written seconds later."""
    session = folder / "-home-dev-late" / "7a7a7a7a-0000-4000-8000-000000000000.jsonl"
    session.parent.mkdir(parents=True, exist_ok=True)
    base = {"sessionId": "7a7a7a7a-0000-4000-8000-000000000000", "cwd": "/home/dev/late", "isSidechain": False}
    session.write_text("".join(json.dumps(r) + "\n" for r in (
        {"type": "mode", "mode": "normal"}, {"type": "permission-mode", "permissionMode": "auto"})))
    exchange = [
        {**base, "type": "user", "uuid": "q1", "parentUuid": None, "timestamp": f"{at}0.000Z",
         "origin": {"kind": "human"}, "message": {"role": "user", "content": "why is the build red?"}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "q1", "timestamp": f"{at}2.000Z",
         "message": {"role": "assistant", "model": "claude-opus-5-5", "id": "msg_1",
                     "content": [{"type": "text", "text": answer}]}}]
    return session, [json.dumps(r) + "\n" for r in exchange]


def test_a_transcript_written_after_its_hook_is_captured_and_no_failure_is_said(claude, tmp_path):
    answer = "A flaky test: retry it once, then quarantine it."
    session, exchange = late_transcript(Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects", answer)
    stop = {"session_id": "7a7a7a7a", "transcript_path": str(session), "cwd": "/home/dev/late",
            "hook_event_name": "Stop", "last_assistant_message": answer}
    assert hook("claude-code", stdin=json.dumps(stop).encode()).returncode == 0
    time.sleep(2)  # the TUI writes the exchange seconds after its Stop hook ran
    with open(session, "a") as out:
        out.write(exchange[0])
    time.sleep(0.5)
    with open(session, "a") as out:
        out.write(exchange[1])
    until(lambda: [c["title"] for c in listed()] == ["why is the build red?"])
    until(queue_empty)
    assert "failed" not in ok("list").stderr.decode()
    assert not to_say().exists() or "failed" not in to_say().read_text()


def test_a_failure_said_is_taken_back_when_the_session_is_captured_after_all(claude, store_path):
    store_path.parent.mkdir(parents=True, exist_ok=True)
    store_path.write_text("not a store")  # the store cannot be opened: the capture fails, for real
    hook("claude-code", stdin=handed(claude[0]))
    until(lambda: queue_empty() and to_say().exists())
    assert f"capturing the claude-code session {claude[0]} failed" in run_conv("list").stderr.decode()
    store_path.unlink()
    hook("claude-code", stdin=handed(claude[0]))  # the same session again, and the store is back
    until(lambda: "1 new" in log() and queue_empty())  # (watched without a conv command: it would say it)
    said = ok("list").stderr.decode()
    assert f"the claude-code session {claude[0]} is captured after all" in said
    assert "captured after all" not in ok("list").stderr.decode()


def test_a_failure_not_yet_said_is_dropped_when_a_later_capture_succeeds(claude, store_path):
    store_path.parent.mkdir(parents=True, exist_ok=True)
    store_path.write_text("not a store")
    hook("claude-code", stdin=handed(claude[0]))
    until(lambda: queue_empty() and to_say().exists())
    store_path.unlink()
    hook("claude-code", stdin=handed(claude[0]))
    until(lambda: "1 new" in log() and queue_empty())
    said = ok("list").stderr.decode()
    assert "failed" not in said and "after all" not in said


def test_after_conv_clear_a_capture_is_not_what_c_continues(claude, fake):
    ok("ask", "explain git rebase")
    ok("clear")
    soon = (datetime.now(timezone.utc) + timedelta(seconds=10)).strftime("%Y-%m-%dT%H:%M:%S")[:-1]
    session, exchange = late_transcript(Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects", "Look at the CI log.", soon)
    with open(session, "a") as out:  # an agent's exchange of a moment ago, after the clear
        out.writelines(exchange)
    hook("claude-code", stdin=handed(session))
    until(lambda: len(listed()) == 2)
    fake.set(reply="A new conversation.")
    done = json.loads(ok("ask", "-c", "what about merges?", "--json").stdout)["conversation"]
    asked = [c for c in listed() if c["id"] == done][0]
    assert asked["turns"] == 2 and asked["source"] is None  # a new one of conv's own, not the agent's session
    ok("import", "--from", "claude-code")  # an import by hand is no choice of what -c continues either
    again = json.loads(ok("ask", "-c", "and squashing?", "--json").stdout)["conversation"]
    assert again == done


def test_the_turns_before_a_key_are_captured_and_those_after_it_said_and_taken_in_by_the_command(claude):
    records = claude[0].read_text().splitlines()
    third = json.loads(records[9])  # the second question (records: a queue line, then a message and an attachment)
    assert third["type"] == "user" and isinstance(third["message"]["content"], str)
    third["message"]["content"] = f"with {KEY} it says 401"
    claude[0].write_text("\n".join([*records[:9], json.dumps(third), *records[10:]]) + "\n")
    hook("claude-code", stdin=handed(claude[0]))
    until(lambda: queue_empty() and to_say().exists())
    said = ok("list").stderr.decode()
    assert "turn 3 holds what looks like an OpenAI API key, so it and the 1 turn after it stay out" in said
    assert [c["turns"] for c in listed()] == [2]
    path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"  # conv on PATH, as installed
    done = subprocess.run(["sh", "-c", said.split("; ")[-1].split(" takes them in")[0]], capture_output=True,
                          env=conv_env({"PATH": path}), timeout=60)
    assert done.returncode == 0, done.stderr
    assert [c["turns"] for c in listed()] == [4]  # the exact command printed took them in


def test_conv_use_right_after_conv_clear_is_what_c_continues(fake):
    ok("ask", "the first topic")
    ok("ask", "-n", "the second topic")
    first = [c for c in listed() if c["title"] == "the first topic"][0]["id"]
    for _ in range(3):  # each within the same second, as a script runs them
        ok("clear")
        ok("use", first)
        assert json.loads(ok("show", "--json").stdout)["id"] == first


def test_lines_that_are_no_json_in_the_middle_of_a_session_are_said_by_the_capture(claude):
    lines = claude[0].read_text().splitlines()
    claude[0].write_text("\n".join([lines[0], lines[1], "this is not json", *lines[2:]]) + "\n")
    hook("claude-code", stdin=handed(claude[0]))
    until(lambda: queue_empty() and to_say().exists())
    said = ok("list").stderr.decode()
    assert f"captured from claude-code: 1 record of {claude[0]} left out: line 3 is no JSON" in said
    assert "half-written" not in said
