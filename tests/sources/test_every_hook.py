"""Every tool conv connects, through the one suite (issue 45): ``conv
connect`` over the user's own settings and ``--remove`` give them back byte
for byte; what its hook hands over, run as the tool runs it (a process of
its own, twice, as a tool that ends a turn and then its session does),
lands the sample's session once. The real tools are driven in their own
tests (tests/test_capture_agents.py, test_qwen.py, test_gemini.py,
test_copilot.py, test_capture_tuis.py)."""

import json
import os
import subprocess
import sys
import time

import pytest
from conftest import conv_env, ok
from samples import SAMPLES

from conv import sources

HOOKED = sorted(s.name for s in sources.every("hook"))


def _home(sample, tmp_path, monkeypatch):
    """The tool's folder moved under the test's own (its variable set; HOME the test's too, for what a tool
    keeps in ~/.config), where the sample is written."""
    variable, _, under = sample.home.partition(":")
    folder = tmp_path / "tool"
    monkeypatch.setenv(variable, str(folder))
    monkeypatch.setenv("HOME", str(tmp_path / "tool" / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return folder / under if under else folder


def test_every_tool_with_a_hook_has_a_sample_that_runs_it():
    assert HOOKED and all(SAMPLES[name].handed and SAMPLES[name].home for name in HOOKED)


@pytest.mark.parametrize("name", HOOKED)
def test_connect_and_remove_give_the_users_settings_back_byte_for_byte(name, tmp_path, monkeypatch):
    sample = SAMPLES[name]
    home = _home(sample, tmp_path, monkeypatch)
    for extra, text in sample.extra.items():  # the tool's other files of the user's (Copilot's MCP servers)
        (home / extra).parent.mkdir(parents=True, exist_ok=True)
        (home / extra).write_bytes(text.encode())
    file = sources.source(name).settings().settings_file(None)
    if sample.settings:
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(sample.settings.encode())
    before = {p: p.read_bytes() for p in (tmp_path / "tool").rglob("*") if p.is_file()}
    ok("connect", name)
    assert file.read_bytes() != sample.settings.encode()
    ok("connect", name)  # the same thing twice: nothing more
    ok("connect", name, "--remove")
    after = {p: p.read_bytes() for p in (tmp_path / "tool").rglob("*") if p.is_file()}
    assert after == before


@pytest.mark.parametrize("name", HOOKED)
def test_what_the_hook_hands_over_lands_the_session_once(name, tmp_path, monkeypatch):
    sample = SAMPLES[name]
    home = _home(sample, tmp_path, monkeypatch)
    sample.write(home, other=False)
    ok("connect", name)
    args, stdin = sample.handed(home / sample.layout)
    for _ in range(2):  # a turn ends, then the session: two hooks, one session
        done = subprocess.run([sys.executable, "-m", "conv", "capture", name, *args], input=stdin,
                              capture_output=True, env=conv_env(), timeout=30)
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    deadline = time.monotonic() + 30
    while not (listed := json.loads(ok("list", "--json").stdout)) or _busy():
        assert time.monotonic() < deadline, "not captured within 30 s"
        time.sleep(0.2)
    (conv,) = listed
    shown = json.loads(ok("show", conv["id"], "--json").stdout)
    assert [t["role"] for t in shown["turns"]] == sample.expect.roles
    assert shown["imported_from"]["source"] == name


def _busy() -> bool:
    queue = os.path.join(os.environ["CONV_HOME"], "state", "capture", "queue")
    return os.path.isdir(queue) and bool(os.listdir(queue))
