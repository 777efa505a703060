"""A store or a cache that conv may not write, as an unprivileged user would
meet it (CI runs as root, which may write anywhere: these tests run conv as
``nobody`` with setpriv, in a CONV_HOME made with the owners each case needs).

A read-only store: conv ask fails before the model is called, in one line
naming the store, with nothing half-written; list, show and search work.
An unwritable cache: the index is a cache, so conv reads and writes the
store all the same, with the index in memory, and says once what is wrong."""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest
from conftest import conv_env, git, ok

import conv
from conv.home import paths

NOBODY = 65534


@pytest.fixture
def shared_home(monkeypatch):
    """A CONV_HOME user nobody can reach (pytest's tmp_path is root's alone)."""
    if os.geteuid() != 0:
        pytest.skip("needs root, to run conv as another user and hand files over")
    top = Path(tempfile.mkdtemp(prefix="conv-shared-"))
    top.chmod(0o755)
    monkeypatch.setenv("CONV_HOME", str(top / "home"))
    paths._dirs.cache_clear()
    yield top / "home"
    shutil.rmtree(top, ignore_errors=True)


@pytest.fixture
def as_nobody(shared_home):
    """conv ARGS run as user nobody (uid and gid 65534, no groups)."""
    code = Path(conv.__file__).resolve().parent.parent
    python_path = os.pathsep.join([str(code), sysconfig.get_paths()["purelib"]])
    env = conv_env({"PYTHONPATH": python_path, "PYTHONNOUSERSITE": "1", "HOME": str(shared_home.parent)})
    drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    # the interpreter running the tests, else one of the same version that nobody can start
    # (a venv made from a Python under /root cannot be started by another user)
    pythons = [sys.executable, shutil.which(f"python{sys.version_info.major}.{sys.version_info.minor}")]
    for python in filter(None, pythons):
        probe = subprocess.run([*drop, python, "-c", "import conv, dulwich, ruamel.yaml"], env=env,
                               capture_output=True, cwd="/")
        if probe.returncode == 0:
            break
    else:
        pytest.skip(f"no Python here that user nobody may start with conv importable: {probe.stderr.decode()[-300:]}")

    def run(*args):
        return subprocess.run([*drop, python, "-m", "conv", *args], env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, cwd="/", timeout=60)
    return run


def give(path: Path, uid: int = NOBODY) -> None:
    for p in [path, *path.rglob("*")]:
        os.lchown(p, uid, uid)


def one_line(done) -> str:
    err = done.stderr.decode()
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def store_files(store: Path) -> dict[str, int]:
    return {str(p.relative_to(store)): p.stat().st_size for p in store.rglob("*") if p.is_file()}


def test_a_read_only_store_refuses_to_ask_before_the_model_and_still_reads(fake, shared_home, as_nobody):
    fake.set(reply="ECHO")
    store = shared_home / "store.git"
    cid = json.loads(ok("ask", "--json", "how does rebase work?").stdout)["conversation"]
    ok("ask", "--cid", cid, "and interactive mode?")
    for mine in ("state", "cache"):  # only the store is not nobody's
        (shared_home / mine).mkdir(exist_ok=True)
        give(shared_home / mine)
    store.chmod(0o755)  # conv makes a store its owner's alone: here others may read it, not write it
    head, files, sent = git(store, "rev-parse", "HEAD"), store_files(store), len(fake.requests)

    done = as_nobody("ask", "--cid", cid, "asked by nobody")
    assert done.returncode == 1
    line = one_line(done)
    assert line.startswith(f"conv: error: {store} is read-only for you"), line
    assert "chown" in line
    assert len(fake.requests) == sent  # the model was never called
    assert git(store, "rev-parse", "HEAD") == head and store_files(store) == files  # nothing half-written

    listed = as_nobody("list", "--json")
    assert listed.returncode == 0, listed.stderr.decode()
    [row] = json.loads(listed.stdout)
    assert row["id"] == cid and row["turns"] == 4
    shown = as_nobody("show", cid)
    assert shown.returncode == 0 and b"and interactive mode?" in shown.stdout, shown.stderr.decode()
    found = as_nobody("search", "rebase")
    assert found.returncode == 0 and b"rebase" in found.stdout, found.stderr.decode()


def test_an_unwritable_cache_never_stops_conv(fake, shared_home, as_nobody):
    fake.set(reply="ECHO")
    cid = json.loads(ok("ask", "--json", "how does rebase work?").stdout)["conversation"]
    for mine in ("store.git", "state"):  # the cache stays root's: nobody may not write it
        (shared_home / mine).mkdir(exist_ok=True)
        give(shared_home / mine)
    cache = shared_home / "cache"
    for leftover in cache.iterdir():
        leftover.unlink()

    listed = as_nobody("list", "--json")
    assert listed.returncode == 0, listed.stderr.decode()
    assert [(r["id"], r["turns"]) for r in json.loads(listed.stdout)] == [(cid, 2)]
    said = one_line(listed)  # said once, however often the index was wanted
    assert said.startswith(f"conv: the index {cache / 'index.sqlite'} cannot be used (you may not write there)"), said
    assert f"chown -R $(id -un) {cache}" in said

    asked = as_nobody("ask", "--json", "--cid", cid, "asked with no index")
    assert asked.returncode == 0, asked.stderr.decode()
    assert json.loads(asked.stdout)["answer"] == "asked with no index"
    assert "cannot be used" in one_line(asked)
    store = shared_home / "store.git"
    assert "asked with no index" in git(store, "-c", "safe.directory=*", "log", "-p", "-1", "HEAD~1")
    found = as_nobody("search", "--json", "no index")
    assert found.returncode == 0 and cid in found.stdout.decode(), found.stderr.decode()
    assert list(cache.iterdir()) == []
