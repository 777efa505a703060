"""Shared fixtures: every test gets its own CONV_HOME and a clean environment;
git checks are the real git CLI.

``run_conv`` runs ``conv ARGS`` inside the test process by default: the same
``conv.__main__.main()`` a ``python -m conv`` process runs, with that
process's argv, environment, stdin and stdout/stderr, and its exit status
taken from ``SystemExit`` (see ``_run_in_process``). Starting a process costs
100-200 ms of imports per call, and most tests make dozens of calls. Where the
process itself is what is tested (signals, a pseudo-terminal, a shell, several
writers at once, kills, start-up) the test starts its own processes, or says
so with ``@pytest.mark.conv_process("why")`` (every run_conv of that test or
module starts a process) or ``run_conv(..., process=True)`` for one call.
CONV_TEST_PROCESSES=1 runs every call as a process, as the suite once did;
test_runner.py checks that both ways answer alike.
"""

import contextlib
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tests/ helpers: fakeserver, …

import readme_setup  # noqa: E402
import real_tools  # noqa: E402
from fakeserver import FakeServer  # noqa: E402

ALL_PROCESSES = os.environ.get("CONV_TEST_PROCESSES", "") not in ("", "0")
_process_marked = False  # the running test (or its module) is marked conv_process


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "conv_process(why): every run_conv in this test starts a real conv process")
    if _whole_suite(config):  # the workers, started next, inherit where the README's set-up will run
        temp = os.environ.get("PYTEST_DEBUG_TEMPROOT") or tempfile.gettempdir()
        os.environ[readme_setup.BACKGROUND] = str(Path(temp) / f"conv-readme-setup-{os.getpid()}")


def _whole_suite(config) -> bool:
    return (config.args_source == pytest.Config.ArgsSource.TESTPATHS and not config.option.collectonly
            and not hasattr(config, "workerinput"))


_background = pytest.StashKey[list[subprocess.Popen]]()


def _begin_background_work(config, collected: list[str]) -> None:
    """When the whole suite runs, work that mostly waits on the network begins
    in the background once the tests are collected (begun with the collection,
    on a fresh machine, it slowed it from 6 to 18 s: each worker compiles and
    rewrites every test module then): the real tools and the model
    (real_tools.py) and the README's set-up (readme_setup.py), if it is to be
    tested. At the lowest CPU priority: their CPU goes where the tests leave a
    core idle, and a test that needs one waits for it and leaves one idle."""
    if not _whole_suite(config) or _background in config.stash:
        return
    jobs = [[real_tools.__file__]]
    if any(test.startswith("tests/test_setup.py::") for test in collected):
        place = Path(os.environ[readme_setup.BACKGROUND])
        place.mkdir()
        jobs.append([readme_setup.__file__, str(place)])
    config.stash[_background] = [subprocess.Popen(  # (nice(1), not preexec_fn: xdist's controller has threads)
        ["nice", "-n", "19", sys.executable, *job], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True) for job in jobs]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    _begin_background_work(node.config, ids)


def pytest_collection_finish(session):  # a run without workers
    _begin_background_work(session.config, [item.nodeid for item in session.items])


def pytest_unconfigure(config):
    for job in config.stash.get(_background, []):
        if job.poll() is None:  # a run that needed none of it, or stopped early
            os.killpg(job.pid, signal.SIGTERM)
            job.wait()
    if _whole_suite(config):
        shutil.rmtree(os.environ.pop(readme_setup.BACKGROUND), ignore_errors=True)  # its model host goes with it


# Under pytest-xdist (tests/run: -n 2 --dist loadgroup) each test is scheduled on
# its own, except the modules below: each group goes to one worker whole, and
# the groups go out first, in this order, as workers free up.
# test_concurrency's tests share a module fixture too costly to build on two
# workers (the swarm: 201 conv processes, 8 at a time), and test_crash's kills
# are timed against a process's start-up, which that swarm would slow down
# several times over if both ran at once; test_progress's tests share a
# generated store of 10,000 conversations (9 s to make). The others mostly
# wait: on timers, terminals and a model loading and leaving (waits), on
# commit times a second apart and a slow remote (sync), on shells in tmux (a
# fifth of the shell plugins' minute is CPU, the rest is conv's and the
# shells' latency, which any CPU-bound neighbour stretches). Scheduled test by
# test, both workers met the same module at once (the tests go out in
# collection order) and a core sat idle; as groups, one worker waits while the
# other works: the waits beside sync while the background fetches, then
# beside the swarm and the store; the shells last, beside single tests
# (test_shell_plugins 69 s among the fetches, 41 s there; a fresh run 294 ->
# 216-248 s, median 222). (The xdist_group mark cannot say this: pytest 9.2 drops the
# node-id suffix loadgroup relies on, pytest-dev/pytest-xdist#1386, and the
# tests would be spread silently.)
ONE_WORKER = {**dict.fromkeys([f"tests/test_{name}.py" for name in (
                  "agents_context", "chat", "command_provider", "completion", "disk_full", "local_host",
                  "local_model", "model_pull", "network", "provider_faults", "resume", "session",
                  "streamed_markdown", "terminal_hygiene", "without_plugin")], "waits"),
              "tests/test_sync.py": "sync",
              "tests/test_concurrency.py": "conv processes", "tests/test_crash.py": "conv processes",
              "tests/test_progress.py": "one generated store", "tests/test_shell_plugins.py": "shells"}
_GROUPS = list(dict.fromkeys(ONE_WORKER.values()))


def _group_rank(nodeid: str) -> int:
    group = ONE_WORKER.get(nodeid.split("::", 1)[0])
    return _GROUPS.index(group) if group else len(_GROUPS)


def pytest_collection_modifyitems(config, items):
    """The groups' tests first, in ONE_WORKER's order; the rest as collected.
    Every worker sorts alike, and the scheduler keeps this order (below)."""
    items.sort(key=lambda item: _group_rank(item.nodeid))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class Scheduling(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return ONE_WORKER.get(nodeid.split("::", 1)[0]) or super()._split_scope(nodeid)

    config.option.loadscopereorder = False  # its order is by size: the number of tests, not their time
    return Scheduling(config, log)


@pytest.fixture(autouse=True)
def _conv_runner(request):
    global _process_marked
    _process_marked = request.node.get_closest_marker("conv_process") is not None
    yield
    _process_marked = False


@pytest.fixture(autouse=True)
def conv_home(tmp_path, monkeypatch):
    """An empty CONV_HOME and HOME, no OPENAI_* / ANTHROPIC_* / OLLAMA_* / CONV_*, proxy or
    SSL_CERT_* variables from the developer's shell, and no Ollama found
    (OLLAMA_HOST points at a closed port)."""
    for name in list(os.environ):
        if (name.startswith(("OPENAI_", "ANTHROPIC_", "OLLAMA_", "CONV_", "SSL_CERT_")) or name == "NO_COLOR"
                or name.lower().endswith("_proxy")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:1")
    # a HOME of the test's own: a conv connect (or a tool) run without its own folders writes nowhere real;
    # the caches stay shared (uv's, the suite's tools)
    monkeypatch.setenv("XDG_CACHE_HOME", os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache"))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))
    home = tmp_path / "home"
    monkeypatch.setenv("CONV_HOME", str(home))
    # the local model's sockets: a short path of the test's own; removing it ends any host left running
    runtime = tempfile.mkdtemp(prefix="conv-rt-")
    monkeypatch.setenv("XDG_RUNTIME_DIR", runtime)
    from conv.home import paths

    paths._dirs.cache_clear()
    yield home
    paths._dirs.cache_clear()
    shutil.rmtree(runtime, ignore_errors=True)


def _fetched(fetch, *args):
    try:
        return fetch(*args)
    except real_tools.FetchFailed as failed:
        pytest.fail(str(failed))


@pytest.fixture(scope="session")
def pulled_model() -> Path:
    """The local model's file, fetched once for the suite by ``conv models pull``."""
    return _fetched(real_tools.pulled_model)


def pip_tools(*names: str) -> dict[str, Path]:
    """The commands of real_tools.PIP_TOOLS named, installed once for every run."""
    return _fetched(real_tools.pip_tools, *names)


def _agent(name: str, command: str, old: bool = False):
    """A session fixture ``name``: the real tool ``command`` (a key of real_tools.AGENTS, or with ``old`` of
    OLD_AGENTS), installed once."""
    @pytest.fixture(scope="session", name=name)
    def installed() -> Path:
        return _fetched(real_tools.agent, command, old)
    return installed


claude_code, codex, qwen_code, gemini, copilot, opencode, pi, cline, mcp_inspector, claude_code_old, qwen_code_old = (
    _agent(name, command, name.endswith("_old")) for name, command in (
        ("claude_code", "claude"), ("codex", "codex"), ("qwen_code", "qwen"), ("gemini", "gemini"),
        ("copilot", "copilot"), ("opencode", "opencode"), ("pi", "pi"), ("cline", "cline"),
        ("mcp_inspector", "mcp-inspector"), ("claude_code_old", "claude"), ("qwen_code_old", "qwen")))


@pytest.fixture
def local_model(conv_home, pulled_model) -> Path:
    """The pulled model in this test's CONV_HOME, where a user's sits in their
    data folder, computing on one thread (local.threads): the suite's two
    workers keep both cores busy, and llama.cpp's prompt threads then wait on
    each other (test_local_model.py took 69 s on the default threads with one
    core taken by another process, 28 s on one thread)."""
    conv_home.mkdir(parents=True, exist_ok=True)
    (conv_home / "models").symlink_to(pulled_model.parent)
    ok("config", "set", "local.threads", "1")
    return conv_home / "models" / pulled_model.name


@pytest.fixture
def fake(monkeypatch):
    """A loopback OpenAI-compatible server that conv is pointed at."""
    with FakeServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        yield server


ANTHROPIC_KEY = "sk-ant-test-123"


@pytest.fixture
def claude(monkeypatch):
    """A loopback fake of Anthropic's Messages API (anthropic_fake.py) that conv is pointed at."""
    from anthropic_fake import AnthropicFake

    with AnthropicFake() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
        yield server


def conv_env(extra: dict | None = None) -> dict:
    """The environment for a conv process. Bytecode caching stays on (this
    machine exports PYTHONDONTWRITEBYTECODE=1, which would recompile conv at
    every start of an editable install)."""
    env = {**os.environ, **(extra or {})}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_conv(*args, input: bytes | str | None = None, env: dict | None = None, timeout: float = 60,
             process: bool = False, cwd: Path | str | None = None) -> subprocess.CompletedProcess:
    """``conv ARGS`` (stdin empty unless given), in folder ``cwd`` if given: in
    this process unless ``process`` is true or the test is marked ``conv_process``."""
    if isinstance(input, str):
        input = input.encode()
    if process or _process_marked or ALL_PROCESSES:
        return run_conv_process(*args, input=input, env=env, timeout=timeout, cwd=cwd)
    if cwd is None:
        return _run_in_process(list(args), input, conv_env(env), timeout)
    was = os.getcwd()
    os.chdir(cwd)
    try:
        return _run_in_process(list(args), input, conv_env(env), timeout)
    finally:
        os.chdir(was)


def run_conv_process(*args, input: bytes | str | None = None, env: dict | None = None, timeout: float = 60,
                     cwd: Path | str | None = None):
    """``conv ARGS`` as a real process (stdin empty unless given), in folder ``cwd`` if given."""
    if isinstance(input, str):
        input = input.encode()
    return subprocess.run(
        [sys.executable, "-m", "conv", *args],
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
        capture_output=True,
        env=conv_env(env),
        timeout=timeout,
        cwd=cwd,
    )


class _Alarm(BaseException):
    """run_conv's timeout, in process (not an Exception: conv must not catch it)."""


# Signals whose Python-level handlers conv may change (main() sets SIGINT's; the
# interrupt and lock helpers set and restore others); put back after each run.
_SIGNALS = [getattr(signal, name) for name in (
    "SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGPIPE", "SIGALRM", "SIGCHLD", "SIGUSR1", "SIGUSR2",
    "SIGWINCH", "SIGTSTP", "SIGCONT", "SIGTTIN", "SIGTTOU") if hasattr(signal, name)]


def _run_in_process(args: list[str], input: bytes | None, env: dict, timeout: float):
    """``conv.__main__.main()`` as ``python -m conv ARGS`` would run it.

    - argv: ``[<path of conv/__main__.py>, *ARGS]``, what ``-m`` gives.
    - environment: os.environ's contents are replaced by ``env`` (so child
      processes, ``shutil.which`` and PATH lookups see it) and put back after.
    - fds 0, 1 and 2 point at temporary files for the run (stdin holds INPUT,
      or is /dev/null), and sys.stdin/stdout/stderr are new text streams over
      those fds, built as the interpreter builds them (UTF-8, the same error
      handlers, unbuffered under PYTHONUNBUFFERED), never a terminal. What
      conv writes and what the processes it starts write (``conv git``, an
      editor, a hook) land in the same files in the same order as they would
      in a pipe to a real process; the files are read back as bytes.
    - exit status: SystemExit's code (None is 0); any other exception is
      exit 1 with its traceback on stderr, as the interpreter would print it.
    - signal handlers, the signal mask and conv.paths' cache are restored, and
      ``timeout`` raises subprocess.TimeoutExpired as subprocess.run does.
    """
    import conv.__main__

    argv = [sys.executable, "-m", "conv", *args]
    with contextlib.ExitStack() as files:
        stdin = files.enter_context(tempfile.TemporaryFile() if input else open(os.devnull, "rb"))  # noqa: SIM115
        if input:
            stdin.write(input)
            stdin.seek(0)
        stdout, stderr = (files.enter_context(tempfile.TemporaryFile()) for _ in range(2))
        timed_out = False
        with _like_a_process([conv.__main__.__file__, *args], env, (stdin, stdout, stderr)):
            signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                code = _exit_status(conv.__main__.main)
            except _Alarm:
                timed_out = True
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        out, err = (_read_back(f) for f in (stdout, stderr))
    if timed_out:
        raise subprocess.TimeoutExpired(argv, timeout, output=out, stderr=err)
    return subprocess.CompletedProcess(argv, code, out, err)


def _alarm(signum, frame):
    raise _Alarm()


def _exit_status(main) -> int:
    """What the interpreter makes of main() returning or raising."""
    try:
        main()
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - the interpreter's last word on an uncaught exception
        sys.stderr.write("".join(traceback.format_exception(exc)))
        return 1
    return 0


@contextlib.contextmanager
def _like_a_process(argv: list[str], env: dict, files):
    """This process's argv, environment, fds 0-2 and sys.std* made those of a
    new conv process for the duration; everything put back after."""
    from conv.home import paths

    unbuffered = bool(env.get("PYTHONUNBUFFERED"))
    saved_environ = dict(os.environ)
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_argv = sys.argv
    saved_handlers = {s: signal.getsignal(s) for s in _SIGNALS}
    saved_mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    saved_fds = [os.dup(fd) for fd in (0, 1, 2)]
    made = []
    try:
        for fd, f in enumerate(files):
            os.dup2(f.fileno(), fd)
        sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "rb", closefd=False)),
                                     encoding="utf-8", errors="surrogateescape")
        made.append(sys.stdin)
        sys.stdout, sys.stderr = (
            io.TextIOWrapper(_binary_out(fd, unbuffered), encoding="utf-8", errors=errors,
                             write_through=unbuffered, line_buffering=not unbuffered and fd == 2)
            for fd, errors in ((1, "surrogateescape"), (2, "backslashreplace")))
        made += [sys.stdout, sys.stderr]
        os.environ.clear()
        os.environ.update(env)
        sys.argv = argv
        paths._dirs.cache_clear()
        yield
    finally:
        for stream in made:  # flushed, as at the interpreter's exit (the fds stay open)
            try:
                stream.flush()
                stream.close() if stream is made[0] else stream.detach()
            except (OSError, ValueError):
                pass
        for binary in _BINARY.values():
            try:
                binary.flush()
            except (OSError, ValueError):
                pass
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        os.environ.clear()
        os.environ.update(saved_environ)
        paths._dirs.cache_clear()
        for s, handler in saved_handlers.items():
            if handler is not None and signal.getsignal(s) is not handler:
                signal.signal(s, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, saved_mask)
        for fd, saved in enumerate(saved_fds):
            os.dup2(saved, fd)
            os.close(saved)


_BINARY: dict[tuple[int, bool], io.RawIOBase | io.BufferedWriter] = {}


def _binary_out(fd: int, unbuffered: bool):
    """The binary layer under sys.stdout (fd 1) or sys.stderr (fd 2): one
    object per fd for the whole session, over whatever file the fd points at
    during a run. Libraries keep it from their import on (dulwich.porcelain's
    default error stream is the sys.stderr.buffer of its import), as they
    would in a process: a per-run object would be closed under them."""
    key = (fd, unbuffered)
    if key not in _BINARY or _BINARY[key].closed:
        raw = io.FileIO(fd, "wb", closefd=False)
        _BINARY[key] = raw if unbuffered else io.BufferedWriter(raw)
    return _BINARY[key]


def _read_back(f) -> bytes:
    f.seek(0)
    return f.read()


def newest() -> dict:
    """The newest conversation in the store, whole (``conv show --json`` of the first listed: an
    import is never the current conversation, which ``conv show`` alone shows)."""
    import json

    return json.loads(ok("show", json.loads(ok("list", "--json").stdout)[0]["id"], "--json").stdout)


def ok(*args, **kw):
    """A conv run that must succeed (a search that found nothing, exit 1 as grep's, included: tests that
    mean its exit ask for it)."""
    done = run_conv(*args, **kw)
    assert done.returncode == 0 or found_nothing(args, done), (args, done.stderr.decode())
    return done


def found_nothing(args: tuple, done) -> bool:
    """Whether ``done`` is conv search saying it found nothing (exit 1, no hit printed)."""
    return args[:1] == ("search",) and done.returncode == 1 and done.stdout.strip() in (b"", b"[]")


def fails(*args, code: int | None = None, **kw) -> str:
    """A conv run that must fail the way conv fails: exit ``code`` (any non-zero
    when None), one line ``conv: error: …``, no traceback. Returns the line."""
    done = run_conv(*args, **kw)
    err = done.stderr.decode()
    assert done.returncode != 0 and (code is None or done.returncode == code), (args, done.returncode, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("conv: error: "), err
    return lines[0]


GIT_IDENTITY = {"GIT_AUTHOR_NAME": "conv tests", "GIT_AUTHOR_EMAIL": "tests@conv.invalid",
                "GIT_COMMITTER_NAME": "conv tests", "GIT_COMMITTER_EMAIL": "tests@conv.invalid"}


def git(store: Path, *args, check: bool = True) -> str:
    """The real git CLI on the store (with an identity of its own: a new HOME has none)."""
    done = subprocess.run(["git", "-C", str(store), *args], capture_output=True, text=True,
                          env={**GIT_IDENTITY, **os.environ})
    if check and done.returncode:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def fsck_clean(repo: Path) -> None:
    """git's strictest check of a repository finds nothing to say."""
    done = subprocess.run(["git", "-C", str(repo), "fsck", "--strict", "--full", "--no-progress"],
                          capture_output=True, text=True)
    text = (done.stdout + done.stderr).lower()
    assert done.returncode == 0 and not any(w in text for w in ("error", "warning", "missing", "broken")), \
        f"git fsck --strict {repo}:\n{text}"


@pytest.fixture
def store_path(conv_home) -> Path:
    return conv_home / "store.git"
