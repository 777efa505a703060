"""``conv connect --check``: each connected tool's hook run as the tool runs
it, the command line its settings hold (through a shell, as the tools run a
hook's command: ``~`` and ``$HOME`` read so), handed a payload of the tool's
shape that marks itself a check (``conv_check``: the hook notes it, having
passed what a capture passes, connected for the folder worked in, and
captures nothing), and held to the time the tool gives it in the strictest
reading any version makes (a Qwen Code before 0.2x read a timeout of 10 as
milliseconds: every exchange was lost, and ``conv connect`` had said
"connected"). What ``conv connect`` finds wrong with a tool's settings (a
file it cannot read, a hook into another store) fails the check too."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import tempfile
import time
from pathlib import Path

from ..home.to_say import checks
from ..records import dataclass
from . import Unparsable, files, reason
from .commands import capture_parts, this_store

UNBOUNDED = 10.0  # seconds a hook is given when its tool sets no limit conv knows
ARGUMENT = ("codex",)  # tools that run the hook's words themselves, its JSON the last of them (no shell)
WRITTEN_LEAST = 1.0  # seconds: a limit under this is a misread one, which conv connect writes right
LOST = "every exchange would be lost"


@dataclass
class Checked:
    tool: str
    file: str
    said: str  # one line: how it went, and what would be lost
    ok: bool = False
    took: float | None = None  # seconds the hook ran
    limit: float | None = None  # seconds the tool gives it

    def to_dict(self) -> dict:
        return {"tool": self.tool, "file": self.file, "ok": self.ok, "said": self.said,
                "took_ms": None if self.took is None else round(self.took * 1000),
                "limit_ms": None if self.limit is None else round(self.limit * 1000)}


def checked(source, status) -> list[Checked]:
    """Each conv capture line for this store in the files ``status`` (connect/status.py) found connected, run and
    judged; each problem it found, a failed check."""
    module, name = source.settings(), source.name
    found = [problem.split(": ", 1) if ": " in problem else (status.file, problem) for problem in status.problems]
    out = [Checked(name, file, why) for file, why in found if file not in status.connected]  # the others are run
    for file in status.connected:
        try:
            data = files.read(Path(file))
            text = data.decode("utf-8") if data is not None else None
            lines = [line for line in module.captures(text) if capture_parts(line, name)[0] == this_store()]
            limit = module.limit(text)
        except (Unparsable, UnicodeDecodeError) as exc:
            out.append(Checked(name, file, f"conv cannot read it ({reason(exc)}): nothing checked"))
            continue
        project = _project_of(file, status.projects)
        out += [_run(name, file, line, limit, project) for line in lines]
    return out


def _project_of(file: str, projects: list[str]) -> str:
    """The folder a hook of ``file`` works in: the project whose settings it is, else the home folder."""
    return next((p for p in projects if os.path.realpath(file).startswith(os.path.realpath(p) + os.sep)),
                os.path.expanduser("~"))


def _run(name: str, file: str, line: list[str], limit: float | None, cwd: str) -> Checked:
    nonce = secrets.token_hex(8)
    payload = json.dumps({"conv_check": nonce, "hook_event_name": "Stop", "session_id": f"conv-check-{nonce}",
                          "cwd": cwd})
    words = [*line, payload] if name in ARGUMENT else [os.path.expandvars(os.path.expanduser(w)) for w in line]
    given = limit if limit is not None else UNBOUNDED
    noted = checks() / nonce
    start = time.monotonic()
    try:
        with tempfile.TemporaryFile() as said:  # a file, not a pipe: a child the hook left holding it is not waited for
            try:
                done = subprocess.run(words, input=None if name in ARGUMENT else payload.encode(), stdout=said,
                                      stderr=said, timeout=given, cwd=cwd if os.path.isdir(cwd) else None)
            except subprocess.TimeoutExpired:
                return Checked(name, file, _late(name, given, limit), False, given, limit)
            except OSError as exc:  # not there, not runnable, not a program at all
                return Checked(name, file, f"{line[0]} cannot be run ({exc.strerror or exc}): {LOST} "
                               f"(conv connect {name} writes this conv)")
            took = time.monotonic() - start
            said.seek(0)
            printed = said.read(200).decode("utf-8", "replace")
        return _judged(name, file, done.returncode, printed, noted.exists(), took, limit, line)
    finally:
        noted.unlink(missing_ok=True)


def _late(name: str, given: float, limit: float | None) -> str:
    if limit is None:
        return f"not done after {_seconds(given)} (the tool sets no limit: it waits, or goes on without it)"
    if limit < WRITTEN_LEAST:
        return (f"killed after {_seconds(given)}, the most the tool waits (a limit read as milliseconds): {LOST} "
                f"(conv connect {name} writes one every version reads as meant)")
    return f"killed after {_seconds(given)}, the most the tool waits: {LOST} (a slow machine, or a wrapper that waits)"


def _judged(name: str, file: str, code: int, printed: str, reached: bool, took: float, limit: float | None,
            line: list[str]) -> Checked:
    program = next((word for word in line if "=" not in word and word != "env"), line[0])
    if code in (126, 127):  # a shell's and env's words for a program that is not there, or not runnable
        said = f"{program} is {'not there' if code == 127 else 'not runnable'}: {LOST} (conv connect {name} " \
               "writes this conv)"
    elif code:
        blocking = " (Claude Code takes exit 2 as a block: the model is handed its words and goes on)" \
            if code == 2 and name == "claude-code" else ""
        said = f"exits {code}: the tool reports a failing hook{blocking}, and {LOST}"
    elif printed:
        said = f"printed {' '.join(printed.split())[:60]!r}: the tool would show it after every answer"
    elif not reached:
        said = f"ran, but conv did not take it (not connected for this folder, or another store's): {LOST}"
    else:
        room = f" (the tool waits {_seconds(limit)})" if limit is not None else " (the tool sets no limit)"
        return Checked(name, file, f"ok: conv took it in {round(took * 1000)} ms{room}", True, took, limit)
    return Checked(name, file, said, False, took, limit)


def _seconds(value: float | None) -> str:
    return "no time" if value is None else f"{value * 1000:g} ms" if value < 1 else f"{value:g} s"
