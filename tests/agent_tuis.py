"""The coding agents' own interactive TUIs, driven as a person uses them:
the real Claude Code, Codex, Gemini CLI and Copilot CLI (from npm, tests/real_tools.py) in a tmux
pane (shells.Tmux), against the loopback fakes, with their first-run screens
answered beforehand in their own settings as a person's earlier runs would
have left them.

    with Tmux(tmp_path) as tmux:
        tui = ClaudeTUI(tmux, claude_code, project, home, server, env)
        tui.ask("what do my notes say?", "Your notes say…")   # typed, Enter, until the answer shows
        tui.command("/compact", "Compacted")
        tui.quit()
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from real_tools import AGENTS_HOME
from shells import Tmux

KEY = "sk-ant-test-0123456789abcdefghij"  # Claude Code asks once whether to use a key: approved in .claude.json


class _TUI:
    """One agent's TUI in a tmux pane."""

    ready = ""  # a pattern on the screen once it takes input

    def __init__(self, tmux: Tmux, name: str, argv: list[str], env: dict, cwd: Path):
        self.pane = tmux.start(name, argv, {**env, "TERM": "xterm-256color", "LANG": "C.UTF-8"}, cwd)
        self.pane.kind = name
        tmux.tmux("set-option", "-t", self.pane.target, "remain-on-exit", "on")  # a crash's last screen stays
        self.pane.wait_text(self.ready, timeout=60)

    def type_line(self, text: str) -> None:
        """``text`` typed, seen in the input box, then Enter (typed keys arriving with Enter read as a paste)."""
        self.pane.type(text)
        self.pane.wait_text(re.escape(text[-30:]), timeout=20)
        time.sleep(0.3)
        self.pane.key("Enter")

    def ask(self, question: str, answer: str, timeout: float = 90) -> None:
        """``question`` typed and sent; back when ``answer`` is on the screen."""
        shown = len(re.findall(re.escape(answer), self.pane.screen()))
        self.type_line(question)
        self.pane.wait(lambda p: len(re.findall(re.escape(answer), p.screen())) > shown or not self.alive(),
                       f"the answer {answer!r}", timeout)
        assert self.alive(), f"{self.pane.name} ended while answering; its last screen:\n{self.pane.screen()}"

    def command(self, line: str, shows: str, timeout: float = 90) -> None:
        """A slash command; back when ``shows`` (a pattern) is on the screen."""
        before = len(re.findall(shows, self.pane.screen()))
        self.type_line(line)
        self.pane.wait(lambda p: len(re.findall(shows, p.screen())) > before, f"/{shows}/ after {line}", timeout)

    def alive(self) -> bool:
        return self.pane.tmux.tmux("display-message", "-p", "-t", self.pane.target, "#{pane_dead}",
                                   check=False).strip() == "0"

    def leave(self, command: str) -> None:
        """``command`` (/exit, /quit) typed and sent; back once the TUI, and with it the tmux server, is gone."""
        self.type_line(command)
        deadline = time.monotonic() + 30
        while self.alive():
            assert time.monotonic() < deadline, f"{self.pane.name} did not end after {command}"
            time.sleep(0.1)


class ClaudeTUI(_TUI):
    """Claude Code's TUI in ``project``, with its own HOME (``home``), asking ``server`` (an AnthropicFake)."""

    ready = r"(?m)^[│ ]*[❯>]\s"  # 2.x's prompt; 1.0's (a no-break space after it)

    def __init__(self, tmux: Tmux, binary: Path, project: Path, home: Path, server, env: dict):
        home.mkdir(parents=True, exist_ok=True)
        state = home / ".claude.json"  # the first-run screens (theme, trust, the key) as a person answered them
        seeded = json.loads(state.read_text()) if state.exists() else {}
        seeded.update({"hasCompletedOnboarding": True, "theme": "dark", "numStartups": 3,
                       "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []}})
        seeded.setdefault("projects", {})[str(project)] = {"hasTrustDialogAccepted": True, "allowedTools": [],
                                                           "hasCompletedProjectOnboarding": True}
        state.write_text(json.dumps(seeded))
        super().__init__(tmux, "claude", [str(binary)], {
            **env, "HOME": str(home), "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": KEY,
            "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}, project)
        self.sessions = home / ".claude" / "projects"

    def quit(self) -> None:
        self.leave("/exit")


class CodexTUI(_TUI):
    """Codex's TUI in ``project``, with its own CODEX_HOME (``home``, its config.toml pointing at a ResponsesFake)."""

    ready = r"(?m)^› "

    def __init__(self, tmux: Tmux, binary: Path, project: Path, home: Path, env: dict):
        config = home / "config.toml"
        trusted = f'\n[projects."{project}"]\ntrust_level = "trusted"\n'
        if trusted not in config.read_text():
            config.write_text(config.read_text() + trusted)
        self.home = home
        super().__init__(tmux, "codex", [str(binary)], {**env, "CODEX_HOME": str(home)}, project)

    def quit(self) -> None:
        self.leave("/quit")

    def __enter__(self) -> "CodexTUI":
        return self

    def __exit__(self, *exc) -> None:
        """Its app-server daemon (the TUI starts one, in a session of its own, that outlives it) stopped."""
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and str(self.home).encode() in (proc / "cmdline").read_bytes():
                    os.kill(int(proc.name), 9)
            except OSError:
                pass


class GeminiTUI(_TUI):
    """Gemini CLI's TUI in ``project``, with its own HOME (``home``, its settings.json there), asking ``server``
    (a GeminiFake) with an API key; the folder trusted, as a person's first run would have left it."""

    ready = r"Type your message"

    def __init__(self, tmux: Tmux, binary: Path, project: Path, home: Path, server, env: dict):
        super().__init__(tmux, "gemini", [str(binary)], {
            **env, "HOME": str(home), "GOOGLE_GEMINI_BASE_URL": server.url, "GEMINI_API_KEY": "fake-key",
            "GEMINI_CLI_TRUST_WORKSPACE": "true"}, project)

    def quit(self) -> None:
        """Ctrl-C twice, as it asks (its /quit waits on a summary screen in a pane this small)."""
        for _ in range(2):
            self.pane.key("C-c")
            time.sleep(0.5)
        deadline = time.monotonic() + 30
        while self.alive():
            assert time.monotonic() < deadline, f"{self.pane.name} did not end after Ctrl-C twice"
            time.sleep(0.1)


def copilot_env(home: Path, server) -> dict:
    """Copilot CLI with its own HOME and no account, in its offline mode asking ``server`` (a FakeServer)."""
    return {"HOME": str(home), "COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_BASE_URL": server.url,
            "COPILOT_PROVIDER_TYPE": "openai", "COPILOT_MODEL": "fake-model", "COPILOT_PROVIDER_API_KEY": "sk-fake",
            "COPILOT_AUTO_UPDATE": "false", "XDG_CACHE_HOME": str(AGENTS_HOME / "cache")}  # unpacks itself, once


class CopilotTUI(_TUI):
    """Copilot CLI's TUI in ``project`` (copilot_env), the folder trusted in its config.json as a person's
    first run ("remember this folder") would have left it."""

    ready = r"(?m)^❯"

    def __init__(self, tmux: Tmux, binary: Path, project: Path, home: Path, server, env: dict):
        config = home / ".copilot" / "config.json"
        config.parent.mkdir(parents=True, exist_ok=True)
        seeded = json.loads(config.read_text()) if config.exists() else {}
        seeded["trusted_folders"] = [*seeded.get("trusted_folders", []), str(project)]
        config.write_text(json.dumps(seeded))
        super().__init__(tmux, "copilot", [str(binary)], {**env, **copilot_env(home, server)}, project)

    def shell(self, command: str, shows: str) -> None:
        """``!`` (the input box turns to its shell mode), then ``command``; back when ``shows`` is on the screen."""
        self.pane.type("!")
        self.pane.wait_text("Shell ·", timeout=20)
        self.command(command, shows)

    def quit(self) -> None:
        self.leave("/exit")


def tui_env() -> dict:
    """What the agents run with: this test's conv on PATH, its CONV_HOME, nothing of the user's."""
    keep = ("PATH", "CONV_HOME", "LANG", "TMPDIR")
    conv = Path(sys.executable).parent
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env["PATH"] = f"{conv}:{env.get('PATH', '/usr/bin:/bin')}"
    return env


@contextmanager
def busy(cores: int = 2):
    """The machine busy meanwhile: ``cores`` processes spinning (as a build or a test run would)."""
    spinning = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cores)]
    try:
        yield
    finally:
        for process in spinning:
            process.kill()
            process.wait()
