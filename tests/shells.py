"""A small harness for the shell-plugin tests: real zsh, bash and fish shells
in tmux panes (a private tmux server per test), driven by keystrokes and read
back from the screen.

    with Tmux(tmp_path) as tmux:
        sh = tmux.shell("bash", env)       # a pane running bash with conv loaded
        sh.wait_prompt()
        sh.type("explain rebase"); sh.key("M-f")
        sh.wait_prompt(after=...)

Every shell starts from a clean configuration of its own under the test's
temporary directory and shows the prompt ``[${CONV_PROMPT}]%# `` (zsh),
``[${CONV_PROMPT}]\\$ `` (bash) or ``[(conv_prompt)]> `` (fish), so the conv
segment can be read between the brackets.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

SHELLS = ("zsh", "bash", "fish")
CONV = Path(__file__).resolve().parent.parent / ".venv" / "bin" / "conv"

# A prompt line: "[SEGMENT]% …", "[SEGMENT]# …", "[SEGMENT]$ …" or "[SEGMENT]> …".
PROMPT_RE = re.compile(r"^\[([^\]\n]*)\][%#$>](?: (.*))?$")


def missing_tools(shell: str) -> list[str]:
    return [tool for tool in ("tmux", shell) if shutil.which(tool) is None]


@dataclass
class Prompt:
    segment: str  # what conv put between the brackets
    buffer: str  # what follows the prompt on that line ("" for an empty line)


class Timeout(AssertionError):
    pass


class Tmux:
    """A private tmux server (its own socket), killed on exit."""

    def __init__(self, tmp: Path):
        self.tmp = Path(tmp)
        self.sock = str(self.tmp / "tmux.sock")
        self.panes: list[Pane] = []
        # The server gets a minimal environment; each pane's command sets its own.
        self._env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm-256color",
                     "HOME": str(self.tmp), "LANG": "C.UTF-8"}

    def __enter__(self) -> "Tmux":
        return self

    def __exit__(self, *exc) -> None:
        self.kill()

    def tmux(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(["tmux", "-S", self.sock, "-f", "/dev/null", *args],
                              capture_output=True, text=True, env=self._env, timeout=10)
        if check and done.returncode:
            raise RuntimeError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def kill(self) -> None:
        if Path(self.sock).exists():
            self.tmux("kill-server", check=False)

    def start(self, name: str, argv: list[str], env: dict[str, str], cwd: Path) -> "Pane":
        """A new tmux session NAME running ARGV with exactly ENV, in CWD."""
        command = "cd " + shlex.quote(str(cwd)) + " && exec env -i " + " ".join(
            shlex.quote(f"{k}={v}") for k, v in env.items()) + " " + " ".join(map(shlex.quote, argv))
        self.tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "50", command)
        pane = Pane(self, name)
        self.panes.append(pane)
        return pane

    def shell(self, kind: str, env: dict[str, str], name: str | None = None,
              rc_before: str = "", rc_after: str = "") -> "Pane":
        """A pane running KIND (zsh, bash or fish) that loads conv's plugin
        from its rc file; RC_BEFORE and RC_AFTER are lines of that shell's
        language run before and after loading."""
        name = name or f"{kind}{len(self.panes)}"
        home = self.tmp / f"home-{name}"
        cwd = self.tmp / f"cwd-{name}"
        home.mkdir(parents=True, exist_ok=True)
        cwd.mkdir(parents=True, exist_ok=True)
        env = {**env, "HOME": str(home), "TERM": "xterm-256color", "LANG": "C.UTF-8",
               "PATH": f"{CONV.parent}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
        if kind == "zsh":
            zdot = home / "zdot"
            zdot.mkdir(exist_ok=True)
            (zdot / ".zshrc").write_text(
                "HISTSIZE=1000\n"
                f"{rc_before}\n"
                f'eval "$({shlex.quote(str(CONV))} init zsh)"\n'
                "setopt promptsubst\n"
                "PROMPT='[${CONV_PROMPT}]%# '\n"
                "RPROMPT=''\n"
                f"{rc_after}\n")
            env["ZDOTDIR"] = str(zdot)
            argv = ["zsh", "-i"]
        elif kind == "bash":
            rc = home / "bashrc"
            rc.write_text(
                f"HISTFILE={shlex.quote(str(home / 'bash_history'))}\n"
                f"{rc_before}\n"
                f'eval "$({shlex.quote(str(CONV))} init bash)"\n'
                "PS1='[${CONV_PROMPT}]\\$ '\n"
                f"{rc_after}\n")
            argv = ["bash", "--noprofile", "--rcfile", str(rc), "-i"]
        elif kind == "fish":
            xdg, data = home / "xdg", home / "xdgdata"
            (xdg / "fish").mkdir(parents=True, exist_ok=True)
            # Without this directory fish starts a heavy completion-generating job.
            (data / "fish" / "generated_completions").mkdir(parents=True, exist_ok=True)
            (xdg / "fish" / "config.fish").write_text(
                "set -g fish_greeting ''\n"
                "set -g fish_autosuggestion_enabled 0\n"  # its grey text is on screen, not in the line
                "function fish_mode_prompt; end\n"  # no [I]/[N] in vi mode: one prompt format
                f"{rc_before}\n"
                f"{shlex.quote(str(CONV))} init fish | source\n"
                "function fish_prompt; printf '[%s]> ' (conv_prompt); end\n"
                "function fish_right_prompt; end\n"
                f"{rc_after}\n")
            env["XDG_CONFIG_HOME"] = str(xdg)
            env["XDG_DATA_HOME"] = str(data)
            argv = ["fish", "-i"]
        else:
            raise ValueError(kind)
        pane = self.start(name, argv, env, cwd)
        pane.kind, pane.home, pane.cwd = kind, home, cwd
        return pane


class Pane:
    """One tmux session's pane: keystrokes in, screen out."""

    kind: str
    home: Path
    cwd: Path

    def __init__(self, tmux: Tmux, name: str):
        self.tmux, self.name = tmux, name
        self.target = f"={name}:"

    # -- input ---------------------------------------------------------------------
    def type(self, text: str) -> None:
        """TEXT typed literally (newlines would be Enter: use key() for those)."""
        self.tmux.tmux("send-keys", "-t", self.target, "-l", "--", text)

    def key(self, *keys: str) -> None:
        """tmux key names: M-f, C-c, Enter, Escape, …"""
        self.tmux.tmux("send-keys", "-t", self.target, *keys)

    # -- output --------------------------------------------------------------------
    def screen(self, history: bool = True) -> str:
        """The pane's text (with its scrollback), wrapped lines joined, trailing
        blank lines dropped."""
        args = ["capture-pane", "-p", "-J", "-t", self.target] + (["-S", "-"] if history else [])
        return self.tmux.tmux(*args).rstrip("\n")

    def lines(self, screen: str | None = None) -> list[str]:
        return [line.rstrip() for line in (self.screen() if screen is None else screen).split("\n")]

    def prompts(self, screen: str | None = None) -> list[Prompt]:
        """Every prompt line on the screen (or on SCREEN, one capture), oldest first."""
        found = []
        for line in self.lines(screen):
            m = PROMPT_RE.match(line)
            if m:
                found.append(Prompt(m.group(1), m.group(2) or ""))
        return found

    def last_prompt(self, screen: str | None = None) -> Prompt | None:
        """The last non-blank line, if it is a prompt."""
        lines = [line for line in self.lines(screen) if line.strip()]
        if not lines:
            return None
        m = PROMPT_RE.match(lines[-1])
        return Prompt(m.group(1), m.group(2) or "") if m else None

    def wait(self, condition, what: str, timeout: float = 10.0):
        """Poll the screen every 50 ms until CONDITION(self) is truthy; return it."""
        deadline = time.monotonic() + timeout
        while True:
            result = condition(self)
            if result:
                return result
            if time.monotonic() > deadline:
                raise Timeout(f"{self.kind} pane {self.name}: timed out after {timeout}s waiting for "
                              f"{what}; the screen:\n{self.screen()}")
            time.sleep(0.05)

    def wait_text(self, pattern: str, timeout: float = 10.0) -> re.Match:
        """Until PATTERN (a regular expression) appears on the screen."""
        rx = re.compile(pattern, re.M)
        return self.wait(lambda p: rx.search(p.screen()), f"/{pattern}/", timeout)

    def wait_prompt(self, after: int | None = None, timeout: float = 10.0) -> Prompt:
        """Until the screen ends in an empty prompt line that is newer than
        the first AFTER prompt lines (default: any); returns it."""

        def ready(p):
            screen = p.screen()  # one capture for both questions, or they may see two moments
            last = p.last_prompt(screen)
            if last is None or last.buffer:
                return None
            if after is not None and len(p.prompts(screen)) <= after:
                return None
            return last

        return self.wait(ready, "an empty prompt" + (f" after prompt #{after}" if after else ""), timeout)

    def mark(self) -> int:
        """How many prompt lines there are now: pass to wait_prompt(after=)."""
        return len(self.prompts())

    def run(self, command: str, timeout: float = 10.0) -> Prompt:
        """Type COMMAND, press Enter, wait for the next empty prompt."""
        self.wait_prompt(timeout=timeout)
        n = self.mark()
        self.type(command)
        self.key("Enter")
        return self.wait_prompt(after=n, timeout=timeout)

    def output_of(self, command: str, timeout: float = 10.0) -> str:
        """Run COMMAND with its stdout sent to a file; that file's text."""
        out = self.home / "out.txt"
        out.unlink(missing_ok=True)
        self.run(f"{command} > {out}", timeout=timeout)
        return out.read_text(errors="replace")

    def press(self, *keys: str, timeout: float = 15.0) -> Prompt:
        """Press KEYS (e.g. M-f) and wait for the next empty prompt."""
        n = self.mark()
        self.key(*keys)
        return self.wait_prompt(after=n, timeout=timeout)
