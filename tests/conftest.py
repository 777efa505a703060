"""Shared fixtures: every test gets its own CONV_HOME and a clean environment;
conv runs as a real process, git checks are the real git CLI."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tests/ helpers: fakeserver, …

from fakeserver import FakeServer  # noqa: E402


@pytest.fixture(autouse=True)
def conv_home(tmp_path, monkeypatch):
    """An empty CONV_HOME, no OPENAI_* / ANTHROPIC_* / OLLAMA_* / CONV_*, proxy or
    SSL_CERT_* variables from the developer's shell, and no Ollama found
    (OLLAMA_HOST points at a closed port)."""
    for name in list(os.environ):
        if (name.startswith(("OPENAI_", "ANTHROPIC_", "OLLAMA_", "CONV_", "SSL_CERT_")) or name == "NO_COLOR"
                or name.lower().endswith("_proxy")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:1")
    home = tmp_path / "home"
    monkeypatch.setenv("CONV_HOME", str(home))
    from conv.home import paths

    paths._dirs.cache_clear()
    yield home
    paths._dirs.cache_clear()


@pytest.fixture
def fake(monkeypatch):
    """A loopback OpenAI-compatible server that conv is pointed at."""
    with FakeServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        yield server


def conv_env(extra: dict | None = None) -> dict:
    """The environment for a conv process. Bytecode caching stays on (this
    machine exports PYTHONDONTWRITEBYTECODE=1, which would recompile conv at
    every start of an editable install)."""
    env = {**os.environ, **(extra or {})}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_conv(*args, input: bytes | str | None = None, env: dict | None = None, timeout: float = 60):
    """``conv ARGS`` as a real process (stdin empty unless given)."""
    if isinstance(input, str):
        input = input.encode()
    return subprocess.run(
        [sys.executable, "-m", "conv", *args],
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
        capture_output=True,
        env=conv_env(env),
        timeout=timeout,
    )


def ok(*args, **kw):
    """A conv run that must succeed."""
    done = run_conv(*args, **kw)
    assert done.returncode == 0, (args, done.stderr.decode())
    return done


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


def git(store: Path, *args, check: bool = True) -> str:
    """The real git CLI on the store."""
    done = subprocess.run(["git", "-C", str(store), *args], capture_output=True, text=True)
    if check and done.returncode:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


@pytest.fixture
def store_path(conv_home) -> Path:
    return conv_home / "store.git"
